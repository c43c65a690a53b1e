//! Measured provisioning: before the local stage uses anything the datasource gave, each
//! input is extended into PCR 12 of the TPM, in a fixed order, with a record in systemd's
//! event log, so a verifier can prove which data configured the machine (the manual: Measured
//! provisioning).
//!
//! An event is a word, `ember-<input>:<sha256 of the input>` (or `:absent`), and each bank is
//! extended with its own hash of the word, as systemd-pcrextend extends its words: a reader
//! of the log can check each record against its word, and no input is copied into the log.
//! The structured inputs are measured as compact JSON with sorted keys (serde_json's map is
//! ordered by key), the data as the datasource decoded it.

pub mod bank;
pub mod log;
pub mod predict;
pub mod tpm;

use crate::context::Ctx;
use crate::error::Diag;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::status::{Measured, MeasuredEvent};
use bank::{hex, Bank};
use ember_core::config::ember::Measure;
use ember_core::instance::InstanceData;
use serde_json::Value;

/// The UAPI PCR registry's PCR for the system's configuration (the kernel command line,
/// credentials, configuration images), where systemd measures a cloud's user data too.
pub const PCR: u32 = 12;
const TPM: &str = "/dev/tpmrm0";

/// One input's event.
pub struct Event {
    pub input: &'static str,
    pub present: bool,
    pub word: String,
}

/// The events for an instance and the image config it is used with, in the order they are
/// extended.
pub fn events(data: &InstanceData, image: &Value) -> Vec<Event> {
    let json = |v: &Value| (!v.is_null()).then(|| serde_json::to_vec(v).unwrap_or_default());
    let bytes =
        |s: &Option<ember_core::secret::Secret<Vec<u8>>>| s.as_ref().map(|s| s.expose().clone());
    let inputs: [(&'static str, Option<Vec<u8>>); 9] = [
        ("meta-data", json(&data.meta_data)),
        ("user-data", bytes(&data.user_data)),
        ("vendor-data", bytes(&data.vendor_data)),
        ("vendor-data2", bytes(&data.vendor_data2)),
        ("platform-config", data.config.as_ref().and_then(json)),
        ("platform-files", json(&platform_files(data))),
        ("platform-data", json(&platform_data(data))),
        (
            "network-config",
            data.network_config.as_ref().and_then(|(_, v)| json(v)),
        ),
        ("image-config", json(image)),
    ];
    inputs
        .into_iter()
        .map(|(input, data)| {
            let digest = data.as_deref().map(|d| hex(&Bank::Sha256.digest(d)));
            Event {
                input,
                present: data.is_some(),
                word: format!("ember-{input}:{}", digest.as_deref().unwrap_or("absent")),
            }
        })
        .collect()
}

/// The files the platform has ember write into the target (a config drive's injected files,
/// Azure's ovf-env.xml): each path, mode and content digest; null when there are none.
fn platform_files(data: &InstanceData) -> Value {
    let files: Vec<Value> = data
        .files
        .iter()
        .map(|f| {
            serde_json::json!({
                "path": f.path,
                "mode": f.mode,
                "new_instance_only": f.new_instance_only,
                "sha256": hex(&Bank::Sha256.digest(f.content.expose())),
            })
        })
        .collect();
    if files.is_empty() {
        Value::Null
    } else {
        Value::Array(files)
    }
}

/// What instance data holds beside the meta-data, which templates read (EC2's identity
/// document, OpenStack's network_data.json, the region and zone); null when there is none.
fn platform_data(data: &InstanceData) -> Value {
    let nothing = data.ds.extra.is_empty()
        && !data.ds.crawled
        && data.region.is_none()
        && data.availability_zone.is_none();
    if nothing {
        return Value::Null;
    }
    serde_json::json!({
        "ds": serde_json::to_value(&data.ds).unwrap_or_default(),
        "region": data.region,
        "availability_zone": data.availability_zone,
    })
}

/// The PCR's value in each bank after `events`, from a PCR at reset (zeros).
pub fn predict(events: &[Event], banks: &[Bank]) -> Vec<(Bank, Vec<u8>)> {
    let start: Vec<(Bank, Vec<u8>)> = banks.iter().map(|b| (*b, b.reset_value())).collect();
    predict_from(events, start)
}

/// The same from values the PCR held before ember's events (a systemd-stub boot measures
/// into PCR 12 first).
pub fn predict_from(events: &[Event], start: Vec<(Bank, Vec<u8>)>) -> Vec<(Bank, Vec<u8>)> {
    start
        .into_iter()
        .map(|(b, start)| {
            let value = events
                .iter()
                .fold(start, |pcr, e| b.extend(&pcr, &b.digest(e.word.as_bytes())));
            (b, value)
        })
        .collect()
}

/// Extends every event into `PCR` in every active bank, each with its log record; then reads
/// the PCR back. Beside the result, why the log stopped being written, if it did.
pub fn measure(
    tpm: &mut dyn tpm::Transport,
    mut log: Option<&mut log::EventLog>,
    events: &[Event],
    boot_id: &str,
) -> Result<(Measured, Option<String>), String> {
    let banks = tpm::active_banks(tpm)?;
    let mut log_failed = None;
    for e in events {
        let digests: Vec<(Bank, Vec<u8>)> = banks
            .iter()
            .map(|b| (*b, b.digest(e.word.as_bytes())))
            .collect();
        // A log that cannot be written is given up (its sticky bit left set, so readers know
        // it is incomplete); the measurement goes on, as systemd's does.
        if let Some(Err(e)) = log.as_deref_mut().map(|l| l.begin()) {
            log_failed.get_or_insert(e);
            log = None;
        }
        tpm::extend(tpm, PCR, &digests)?;
        if let Some(l) = log.as_deref_mut() {
            let us = (crate::clock::boot_seconds() * 1e6) as u64;
            let record = log::record(PCR, &digests, &e.word, boot_id, us);
            if let Err(e) = l.append(&record).and_then(|()| l.done()) {
                log_failed.get_or_insert(e);
                log = None;
            }
        }
    }
    let mut values = std::collections::BTreeMap::new();
    for b in &banks {
        values.insert(b.name().to_string(), hex(&tpm::read(tpm, PCR, *b)?));
    }
    let measured = Measured {
        pcr: PCR,
        banks: banks.iter().map(|b| b.name().to_string()).collect(),
        events: events
            .iter()
            .map(|e| MeasuredEvent {
                input: e.input.to_string(),
                present: e.present,
            })
            .collect(),
        values,
    };
    Ok((measured, log_failed))
}

/// The local stage's measurement of the instance it is about to use. False when provisioning
/// must stop: the image requires a measurement (`ember.measure: required`) that was not made.
pub fn run(ctx: &Ctx, rec: &mut Recorder, data: &InstanceData) -> bool {
    let required = match ctx.image.ember.measure {
        Measure::Off => {
            rec.skipped("measure", "skipped (ember.measure: off)".into());
            return true;
        }
        Measure::Auto => false,
        Measure::Required => true,
    };
    let device = match tpm::Device::open(&ctx.host.path(TPM)) {
        Ok(Some(d)) => d,
        Ok(None) if !required => {
            rec.skipped("measure", format!("skipped (no TPM at {TPM})"));
            return true;
        }
        Ok(None) => {
            let why = format!(
                "ember.measure is required and there is no TPM at {TPM}: nothing is provisioned"
            );
            rec.record(Diag::error(Reason::TpmMissing, why));
            return false;
        }
        Err(e) => {
            rec.record(Diag::error(Reason::TpmFailed, stop(e, required)));
            return !required;
        }
    };
    rec.step("measure", |rec| {
        let mut device = device;
        let mut log = match log::EventLog::open(ctx.run.run()) {
            Ok(log) => Some(log),
            Err(e) => {
                let why = format!("{e}: the inputs are measured without their log records");
                rec.record(Diag::warning(Reason::TpmLog, why));
                None
            }
        };
        let boot_id = std::fs::read_to_string(ctx.host.boot_id()).unwrap_or_default();
        let boot_id = boot_id.trim().replace('-', "");
        let events = events(data, &ctx.image.value);
        match measure(&mut device, log.as_mut(), &events, &boot_id) {
            Ok((m, log_failed)) => {
                if let Some(e) = log_failed {
                    let why = format!(
                        "{e}: the rest of the inputs were measured without their log records"
                    );
                    rec.record(Diag::warning(Reason::TpmLog, why));
                }
                rec.status.measured = Some(m);
                true
            }
            Err(e) => {
                rec.record(Diag::error(Reason::TpmFailed, stop(e, required)));
                !required
            }
        }
    })
}

fn stop(why: String, required: bool) -> String {
    if required {
        format!("{why}: ember.measure is required, so nothing is provisioned")
    } else {
        why
    }
}

#[cfg(test)]
mod tests {
    use super::tpm::fake::{error, FakeTpm};
    use super::*;
    use serde_json::json;

    fn instance() -> InstanceData {
        InstanceData {
            meta_data: json!({"local-hostname": "web01", "instance-id": "iid-1"}),
            user_data: Some(ember_core::secret::Secret::new(b"#cloud-config\n".to_vec())),
            ..InstanceData::default()
        }
    }

    /// Expected: nine events in the fixed order, absent inputs said so; the JSON inputs
    /// hashed with their keys sorted, whatever order they were read in.
    #[test]
    fn events_come_in_a_fixed_order_and_json_is_canonical() {
        let ev = events(&instance(), &json!({"b": 1, "a": 2}));
        let inputs: Vec<&str> = ev.iter().map(|e| e.input).collect();
        assert_eq!(
            inputs,
            [
                "meta-data",
                "user-data",
                "vendor-data",
                "vendor-data2",
                "platform-config",
                "platform-files",
                "platform-data",
                "network-config",
                "image-config"
            ]
        );
        assert_eq!(ev[2].word, "ember-vendor-data:absent");
        let md = hex(&Bank::Sha256.digest(br#"{"instance-id":"iid-1","local-hostname":"web01"}"#));
        assert_eq!(ev[0].word, format!("ember-meta-data:{md}"));
        let image = hex(&Bank::Sha256.digest(br#"{"a":2,"b":1}"#));
        assert_eq!(ev[8].word, format!("ember-image-config:{image}"));
    }

    /// Expected: what the TPM holds after the measurement is what `predict` computes, in
    /// every active bank; a different user-data gives a different value.
    #[test]
    fn the_tpm_ends_where_the_prediction_says() {
        let ev = events(&instance(), &json!({}));
        let mut tpm = FakeTpm::new(&[Bank::Sha1, Bank::Sha256, Bank::Sha384]);
        let (m, log_failed) = measure(&mut tpm, None, &ev, "").unwrap();
        assert!(log_failed.is_none());
        let predicted = predict(&ev, &[Bank::Sha1, Bank::Sha256, Bank::Sha384]);
        assert_eq!(tpm.pcrs, predicted);
        assert_eq!(m.values["sha256"], hex(&predicted[1].1));
        assert_eq!(m.events.len(), 9);
        let mut other = instance();
        other.user_data = Some(ember_core::secret::Secret::new(
            b"#cloud-config\n\n".to_vec(),
        ));
        assert_ne!(
            predict(&events(&other, &json!({})), &[Bank::Sha256])[0],
            predicted[1]
        );
    }

    /// Expected: a TPM that fails half-way, or one QEMU answers for after its emulator died,
    /// ends the measurement with an error naming the command.
    #[test]
    fn a_failing_tpm_stops_the_measurement_with_the_command_named() {
        let ev = events(&instance(), &json!({}));
        let mut tpm = FakeTpm::new(&[Bank::Sha256]);
        tpm.fail_at = Some(4); // the capability, two extends, then the third extend
        let e = measure(&mut tpm, None, &ev, "").unwrap_err();
        assert!(
            e.contains("PCR_Extend(PCR 12)") && e.contains("0x101"),
            "{e}"
        );
        let mut dead = FakeTpm::new(&[Bank::Sha256]);
        dead.canned = vec![error(0x00C4, 9)];
        let e = measure(&mut dead, None, &ev, "").unwrap_err();
        assert!(
            e.contains("GetCapability") && e.contains("not a TPM 2.0"),
            "{e}"
        );
    }
}
