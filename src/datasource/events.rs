//! cloud-init's update events for the network scope: when the network config is rendered
//! again. Each datasource declares the events it supports and those on by default
//! (`Datasource::{supported,default}_update_events`, cloud-init's class attributes of the same
//! names); the config's `updates.network.when` replaces the default, as cloud-init's
//! `update_event_enabled` merges them. The local stage writes the outcome into the merged
//! config, so the network step and the runner's `install_hotplug` read one answer.
//! Not here: the `hotplug.enabled` file (the runner reads it), the storage scope (cloud-init
//! has none yet), acting on the events (stages/network.rs, runner install_hotplug).
//! <https://docs.cloud-init.io/en/latest/explanation/events.html>

use super::Datasource;
use serde_json::{json, Value};

/// An update event, by cloud-init's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A new instance id: always rendered (cloud-init's first boot).
    BootNewInstance,
    /// Every boot.
    Boot,
    /// Every boot, cloud-init's older name for it.
    BootLegacy,
    /// A NIC added or removed while the system runs.
    Hotplug,
}

impl Event {
    pub fn name(self) -> &'static str {
        match self {
            Event::BootNewInstance => "boot-new-instance",
            Event::Boot => "boot",
            Event::BootLegacy => "boot-legacy",
            Event::Hotplug => "hotplug",
        }
    }

    pub fn parse(s: &str) -> Option<Event> {
        ALL.iter().copied().find(|e| e.name() == s)
    }
}

/// cloud-init's base class: every event supported.
pub const ALL: &[Event] = &[
    Event::BootNewInstance,
    Event::Boot,
    Event::BootLegacy,
    Event::Hotplug,
];
/// cloud-init's base default: a new instance only.
pub const NEW_INSTANCE: &[Event] = &[Event::BootNewInstance];
/// Rendered on every boot too (Azure, GCE: NICs can change while the machine is stopped).
pub const EVERY_BOOT: &[Event] = &[Event::BootNewInstance, Event::Boot];
/// A new instance and NICs added later (EC2).
pub const HOTPLUG: &[Event] = &[Event::BootNewInstance, Event::Hotplug];

/// The network events in force: the config's `updates.network.when` when it says one (a
/// list; names ember does not know are left for the network step to report), else the
/// datasource's default; only those the datasource supports.
pub fn network_when(cfg: &Value, ds: &dyn Datasource) -> Vec<Value> {
    let supported = ds.supported_update_events();
    let given = cfg
        .pointer("/updates/network/when")
        .and_then(Value::as_array);
    let keep = |v: &Value| {
        v.as_str()
            .and_then(Event::parse)
            .is_none_or(|e| supported.contains(&e))
    };
    match given {
        Some(list) => list.iter().filter(|v| keep(v)).cloned().collect(),
        None => ds
            .default_update_events()
            .iter()
            .filter(|e| supported.contains(e))
            .map(|e| json!(e.name()))
            .collect(),
    }
}

/// Writes the events in force into `cfg` (`updates.network.when`), keeping the rest of
/// `updates` as it is.
pub fn fill(cfg: &mut Value, ds: &dyn Datasource) {
    let when = Value::Array(network_when(cfg, ds));
    let Some(map) = cfg.as_object_mut() else {
        return;
    };
    let updates = map.entry("updates").or_insert_with(|| json!({}));
    if !updates.is_object() {
        return; // the wrong type: the schema reports it, nothing is guessed
    }
    let network = updates
        .as_object_mut()
        .map(|u| u.entry("network").or_insert_with(|| json!({})));
    if let Some(Value::Object(n)) = network {
        n.insert("when".into(), when);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Env;
    use crate::datasource::{InstanceData, Link};
    use crate::detect::Facts;
    use crate::error::Diag;
    use crate::status::Evidence;

    /// A datasource of the given events.
    struct Ds(&'static [Event], &'static [Event]);

    impl Datasource for Ds {
        fn name(&self) -> &'static str {
            "test"
        }
        fn cloud_init_name(&self) -> &'static str {
            "Test"
        }
        fn detect(&self, _: &Env, _: &Facts) -> Vec<Evidence> {
            Vec::new()
        }
        fn fetch(&self, _: &Env, _: &Facts, _: &mut Link) -> Result<InstanceData, Diag> {
            Err(Diag::error(crate::reason::Reason::WrongType, "unused"))
        }
        fn default_update_events(&self) -> &'static [Event] {
            self.0
        }
        fn supported_update_events(&self) -> &'static [Event] {
            self.1
        }
    }

    #[test]
    fn the_config_replaces_the_default_within_what_is_supported() {
        let ec2 = Ds(HOTPLUG, ALL);
        let mut cfg = json!({"updates": {"other": 1}});
        fill(&mut cfg, &ec2);
        assert_eq!(
            cfg,
            json!({"updates": {"other": 1, "network": {"when": ["boot-new-instance", "hotplug"]}}})
        );
        // The user's list wins, whole, as in cloud-init's merge.
        let mut cfg = json!({"updates": {"network": {"when": ["boot"]}}});
        fill(&mut cfg, &ec2);
        assert_eq!(cfg["updates"]["network"]["when"], json!(["boot"]));
        // An empty list turns the default off.
        let mut cfg = json!({"updates": {"network": {"when": []}}});
        fill(&mut cfg, &ec2);
        assert_eq!(cfg["updates"]["network"]["when"], json!([]));
        // Not supported: dropped; unknown names stay for the network step to report.
        let narrow = Ds(EVERY_BOOT, EVERY_BOOT);
        let mut cfg = json!({"updates": {"network": {"when": ["hotplug", "boot", "sometimes"]}}});
        fill(&mut cfg, &narrow);
        assert_eq!(
            cfg["updates"]["network"]["when"],
            json!(["boot", "sometimes"])
        );
        let mut cfg = json!({});
        fill(&mut cfg, &Ds(NEW_INSTANCE, ALL));
        assert_eq!(
            cfg["updates"]["network"]["when"],
            json!(["boot-new-instance"])
        );
        // The wrong type is left alone.
        let mut cfg = json!({"updates": "boot"});
        fill(&mut cfg, &ec2);
        assert_eq!(cfg, json!({"updates": "boot"}));
    }

    #[test]
    fn each_cloud_declares_cloud_init_s_defaults() {
        let when = |name: &str| {
            let ds = crate::datasource::by_name(name).unwrap();
            let names: Vec<_> = ds
                .default_update_events()
                .iter()
                .map(|e| e.name())
                .collect();
            names.join(",")
        };
        assert_eq!(when("Ec2"), "boot-new-instance,hotplug");
        assert_eq!(when("Azure"), "boot-new-instance,boot");
        assert_eq!(when("GCE"), "boot-new-instance,boot");
        for base in ["NoCloud", "OpenStack", "ConfigDrive", "None"] {
            assert_eq!(when(base), "boot-new-instance", "{base}");
        }
        assert_eq!(when("DigitalOcean"), "boot-new-instance");
    }
}
