//! VMware guest customization (cloud-init's `imc` transport): found as ds-identify finds it,
//! then refused with the reason. The customization spec (`cust.cfg`, under
//! `/var/run/vmware-imc`) is unpacked by open-vm-tools' deployPkg plugin, which runs inside
//! vmtoolsd in the booted system: it does not exist while ember-initrd runs, and cloud-init
//! itself waits for it there. So ember says so instead of choosing nothing in silence.

use crate::context::Env;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

/// Where the packagings put the deployPkg plugin (ds-identify's list), under the target.
const LIB_DIRS: [&str; 5] = [
    "/usr/lib",
    "/usr/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib/i386-linux-gnu",
];
const PACKAGES: [&str; 2] = ["vmware-tools", "open-vm-tools"];
const PLUGIN: &str = "plugins/vmsvc/libdeployPkgPlugin.so";
/// The system config's switch; customization is off unless it says false.
const SWITCH: &str = "disable_vmware_customization";

/// The deployPkg plugin in the target, where one packaging put it.
fn plugin(env: &Env) -> Option<String> {
    let target = env.target.as_ref()?;
    PACKAGES
        .iter()
        .flat_map(|pkg| {
            LIB_DIRS
                .iter()
                .map(move |dir| format!("{dir}/{pkg}/{PLUGIN}"))
        })
        .find(|path| target.exists(path))
}

/// Whether the switch says "customize": false, or 0, as ds-identify reads it.
fn switched_on(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => !b,
        Some(Value::Number(n)) => n.as_u64() == Some(0),
        Some(Value::String(s)) => matches!(s.as_str(), "0" | "false" | "False"),
        _ => false,
    }
}

/// Why customization applies here (the plugin and the switch), or None.
pub fn enabled(env: &Env) -> Option<String> {
    if !switched_on(env.image.value.get(SWITCH)) {
        return None;
    }
    let at = env.image.origin(SWITCH).unwrap_or("the image config");
    plugin(env).map(|p| format!("deployPkg plugin {p}, {SWITCH}: false in {at}"))
}

/// The fetch's answer when customization is what chose VMware.
pub fn refusal(why: &str) -> Diag {
    let msg = format!(
        "guest customization is switched on ({why}) and ember does not apply it: its spec \
         (cust.cfg) is unpacked by vmtoolsd's deployPkg plugin in the booted system, after \
         ember-initrd; give the data as guestinfo keys or an OVF environment, or set {SWITCH}: \
         true"
    );
    Diag::error(Reason::VmwareCustomizationUnsupported, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_switch_as_ds_identify_reads_it() {
        for on in [
            json!(false),
            json!(0),
            json!("false"),
            json!("False"),
            json!("0"),
        ] {
            assert!(switched_on(Some(&on)), "{on}");
        }
        for off in [json!(true), json!(1), json!("no"), json!(null)] {
            assert!(!switched_on(Some(&off)), "{off}");
        }
        assert!(!switched_on(None), "off unless set");
    }
}
