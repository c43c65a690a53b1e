//! The local stage's network step: render the chosen network config (or cloud-init's
//! fallback) for the target's stack, once per instance and NIC set. When the instance or the
//! NICs change, the previous instance's rendered files and the persistent naming rules tied to
//! MACs that are gone are removed, and nothing else. cloud-init's `updates: {network: {when:
//! [boot]}}` renders again on every boot.
//! <https://docs.cloud-init.io/en/latest/reference/network-config.html>

use crate::context::Ctx;
use crate::error::Diag;
use crate::reason::Reason;
use crate::record::Recorder;
// udev's persistent naming rules name NICs by MAC; the ENI renderer writes them.
use crate::network::render::eni::RULES as UDEV_RULES;
use crate::network::render::owned::{self, RECORD as STATE};
use crate::network::{fallback, model::Network, stack, Input};
use crate::root::{FileSpec, Root};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What was rendered, kept in the target (at `STATE`) so a later boot knows what may be
/// ember's to remove.
#[derive(Default, Serialize, Deserialize)]
struct Rendered {
    instance_id: String,
    macs: Vec<String>,
    renderer: String,
    files: Vec<String>,
}

/// `network` is `<run>/ember/network-config.json`'s content: `{disabled}` or
/// `{source, config, model}`.
pub fn apply(
    ctx: &Ctx,
    rec: &mut Recorder,
    root: &Root,
    instance_id: &str,
    network: &Value,
    cfg: &Value,
    stack: stack::Choice,
) {
    if network.get("disabled").is_some() {
        return;
    }
    let macs = fallback::physical_macs(&ctx.host);
    let previous = read_record(rec, root);
    let unchanged = previous.instance_id == instance_id && previous.macs == macs;
    if unchanged && !every_boot(rec, cfg) {
        return; // Rendered for this instance and these NICs: the same on every boot.
    }
    let written = render(ctx, rec, root, network, stack);
    forget_previous(rec, root, &previous, &macs, &written);
    let Some((renderer, files)) = written else {
        return;
    };
    let state = Rendered {
        instance_id: instance_id.to_string(),
        macs,
        renderer,
        files,
    };
    let json = serde_json::to_vec_pretty(&state).unwrap_or_default();
    if let Err(e) = root.write_file(STATE, &json, &FileSpec::mode(0o644)) {
        rec.record(Diag::error(e.code(), e.to_string()).file(STATE));
    }
}

/// The previous rendering's record; none (a first boot) is quiet, one that cannot be read
/// is reported (by its line, never its content) and taken as none.
fn read_record(rec: &mut Recorder, root: &Root) -> Rendered {
    match root.read_file(STATE, owned::MAX_RECORD) {
        Ok(None) => Rendered::default(),
        Ok(Some(bytes)) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            let d = Diag::warning(owned::REFUSED, owned::UNREADABLE).file(STATE);
            rec.record(d.line(u32::try_from(e.line()).ok()));
            Rendered::default()
        }),
        Err(e) => {
            rec.record(Diag::warning(e.code(), e.to_string()).file(STATE));
            Rendered::default()
        }
    }
}

/// cloud-init's update events, as the local stage settled them (datasource/events.rs):
/// `boot` (and its older name `boot-legacy`) asks for a rendering on every boot;
/// `boot-new-instance` always holds; `hotplug` is the runner's (install_hotplug's udev rule).
fn every_boot(rec: &mut Recorder, cfg: &Value) -> bool {
    let Some(when) = cfg
        .pointer("/updates/network/when")
        .and_then(Value::as_array)
    else {
        return false;
    };
    let mut boot = false;
    for event in when {
        match event.as_str() {
            Some("boot" | "boot-legacy") => boot = true,
            Some("boot-new-instance" | "hotplug") => {}
            _ => {
                let msg = "an update event ember does not know (it knows boot, boot-legacy, boot-new-instance and hotplug): ignored";
                rec.record(
                    Diag::warning(Reason::UnsupportedUpdateEvent, msg).file("updates.network.when"),
                );
            }
        }
    }
    boot
}

/// The model of the record's config, which the local stage parsed (`model` is there only when
/// it parsed), parsed again the way the model's format says it was: reading the recorded
/// model back would take a deserializer for every model type, 90 KiB of ember-initrd. Its
/// warnings are in the status already.
fn parsed_again(ctx: &Ctx, network: &Value) -> Option<Network> {
    let source = network["source"].as_str()?;
    let config = &network["config"];
    let macs;
    let input = match network.pointer("/model/format")?.as_str()? {
        "cmdline" => Input::Cmdline(&ctx.cmdline),
        "openstack" => {
            macs = fallback::names_by_mac(&ctx.host);
            Input::NetworkData(config, &macs)
        }
        _ => Input::Value(config, None),
    };
    crate::network::parse(source, input).ok().map(|p| p.model)
}

/// Renders the config (or the fallback) for the chosen stack: the renderer's name and the
/// files written, or `None` when nothing was rendered.
fn render(
    ctx: &Ctx,
    rec: &mut Recorder,
    root: &Root,
    network: &Value,
    stack: stack::Choice,
) -> Option<(String, Vec<String>)> {
    let source = network["source"].as_str().unwrap_or("fallback");
    let given = parsed_again(ctx, network);
    let model: Option<Network> = match given {
        _ if source == "fallback" => fallback::config(&ctx.host),
        Some(model) => Some(model),
        // No model: the config was wholly unusable (its problems are in the status already).
        // Like cloud-init, the machine still gets the fallback rather than no network.
        None => {
            let msg = "the network config is unusable (see its problems): the fallback network is rendered instead";
            rec.record(Diag::warning(Reason::NetworkConfigInvalid, msg).file(source.to_string()));
            fallback::config(&ctx.host)
        }
    };
    // No NIC for the fallback: nothing was asked for, so nothing to say.
    let model = model?;
    for why in stack.problems {
        let d = Diag::warning(Reason::NetworkRenderer, why).file("system_info.network.renderers");
        rec.record(d);
    }
    let Some(chosen) = stack.stack else {
        // Only a config someone gave is worth a warning; a root without a network stack (a
        // container image, a rescue system) does not want the fallback.
        if source != "fallback" {
            let msg = "the target has none of the network stacks ember renders for (ifupdown, netplan, NetworkManager, systemd-networkd): network config not written";
            rec.record(Diag::warning(Reason::NetworkNoRenderer, msg).file(source.to_string()));
        }
        return None;
    };
    let out = chosen.render(&model);
    rec.record_all(out.warnings);
    let mut written = Vec::new();
    for f in &out.files {
        match root.write_file(&f.path, f.content.as_bytes(), &FileSpec::mode(f.mode)) {
            Ok(()) => written.push(f.path.clone()),
            Err(e) => rec.record(Diag::error(e.code(), e.to_string()).file(f.path.clone())),
        }
    }
    Some((chosen.name().to_string(), written))
}

/// Removes what the previous rendering wrote and this one did not (written after the new
/// files, so a power cut never leaves neither), and the udev naming rules of MACs that are no
/// longer present. The record may be stale or corrupt: only files and rules that are ember's
/// own go (see `owned`); anything else it lists is left alone and reported.
fn forget_previous(
    rec: &mut Recorder,
    root: &Root,
    previous: &Rendered,
    macs: &[String],
    written: &Option<(String, Vec<String>)>,
) {
    let kept: &[String] = written.as_ref().map_or(&[], |(_, files)| files);
    for path in previous.files.iter().filter(|p| !kept.contains(p)) {
        if let Err(refusal) = owned::remove(root, path) {
            rec.record(Diag::warning(refusal.code(), refusal.message(path)).file(STATE));
        }
    }
    let mut gone = Vec::new();
    for (i, mac) in previous.macs.iter().enumerate() {
        if !owned::is_mac(mac) {
            let msg = "not a whole MAC address (six hex octets): no udev rule removed for it";
            let d = Diag::warning(owned::REFUSED, msg)
                .file(STATE)
                .key(format!("macs.{i}"));
            rec.record(d);
        } else if !macs.iter().any(|m| m.eq_ignore_ascii_case(mac)) {
            gone.push(mac.as_str());
        }
    }
    if gone.is_empty() {
        return;
    }
    let Ok(Some(rules)) = root.read_file(UDEV_RULES, 1 << 20) else {
        return;
    };
    let text = String::from_utf8_lossy(&rules);
    let kept = owned::drop_udev_rules(&text, &gone);
    if kept != text {
        if let Err(e) = root.write_file(UDEV_RULES, kept.as_bytes(), &FileSpec::mode(0o644)) {
            rec.record(Diag::error(e.code(), e.to_string()).file(UDEV_RULES));
        }
    }
}

/// After a hotplug rendering on the running system: the stack that was rendered for reads its
/// files again, as cloud-init's activators do (networkd and NetworkManager reload, netplan
/// applies, ifupdown brings up what is marked auto). A failure is a warning: the files are
/// in place for the next boot.
pub fn reload(rec: &mut Recorder, root: &Root) {
    let renderer = read_record(rec, root).renderer;
    let argv: &[&str] = match renderer.as_str() {
        "networkd" => &["networkctl", "reload"],
        "network-manager" => &["nmcli", "connection", "reload"],
        "netplan" => &["netplan", "apply"],
        "eni" => &["ifup", "-a"],
        _ => return,
    };
    // `netplan apply` and `ifup -a` wait for DHCP; past this one is hung. Its output goes to
    // the console, and what it starts (a DHCP client) keeps running.
    let deadline = crate::bounds::HOTPLUG_RELOAD;
    let outcome = crate::child::status(
        std::process::Command::new(argv[0]).args(&argv[1..]),
        deadline,
    );
    let failed = match outcome {
        Ok(s) if s.success() => return,
        Ok(s) => format!("{}: {s}", argv.join(" ")),
        Err(e) => format!("{}: {e}", argv.join(" ")),
    };
    rec.record(Diag::warning(Reason::CommandFailed, failed).file(STATE));
}
