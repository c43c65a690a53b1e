//! `rpi` (Raspberry Pi OS only): `interfaces` (`spi`, `i2c`, `onewire`: true or false;
//! `serial`: a boolean for the console, or `{console, hardware}`) set with `raspi-config
//! nonint do_spi|do_i2c|do_onewire|do_serial_cons|do_serial_hw 0|1`, and `enable_usb_gadget`
//! with `/usr/bin/rpi-usb-gadget on|off`, in the order given, as cloud-init does (on a Pi
//! other than the 5, a serial console takes the UART hardware too). A wrong value is a
//! warning, except a non-boolean `enable_usb_gadget`, which stops the module (cloud-init
//! raises). When anything changed, the machine reboots to apply config.txt: ember asks for it
//! when the stage ends, as power_state_change does. It runs at most once per instance, so a
//! failure cannot turn into a reboot on every boot.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#raspberry-pi-configuration>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::system_tools as tools;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

pub struct RaspberryPi;

const RASPI_CONFIG: &str = "/usr/bin/raspi-config";
const USB_GADGET: &str = "/usr/bin/rpi-usb-gadget";
const REBOOT_MESSAGE: &str = "Rebooting to apply config.txt changes...";

/// One action, in the order the config gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    UsbGadget(bool),
    /// `spi`, `i2c` or `onewire` and whether to enable it.
    Interface(&'static str, bool),
    /// console, hardware (`None`: the console's choice on a Pi other than the 5).
    Serial(bool, bool),
}

fn warn(key: &str, msg: &str, diags: &mut Vec<Diag>) {
    diags.push(Diag::warning(Reason::BadValue, msg.to_string()).key(key));
}

/// The steps `rpi` asks for. Reading stops where cloud-init's handler stops: at a
/// non-boolean `enable_usb_gadget` (an error) or an `interfaces` that is not a non-empty
/// mapping (its later keys are not read).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<Step> {
    let mut steps = Vec::new();
    let map = match cfg.get("rpi") {
        None => return steps,
        Some(Value::Object(m)) => m,
        Some(_) => {
            warn(
                "rpi",
                "must be a mapping of interfaces and enable_usb_gadget",
                diags,
            );
            return steps;
        }
    };
    for (key, v) in map {
        match key.as_str() {
            "enable_usb_gadget" => match v {
                Value::Bool(b) => steps.push(Step::UsbGadget(*b)),
                _ => {
                    let msg = "must be true or false";
                    let d = Diag::error(Reason::WrongType, msg).key("rpi.enable_usb_gadget");
                    diags.push(d);
                    return steps;
                }
            },
            "interfaces" => match v {
                Value::Object(ifaces) if !ifaces.is_empty() => {
                    interfaces(ifaces, &mut steps, diags)
                }
                Value::Object(_) => return steps,
                _ => {
                    warn("rpi.interfaces", "must be a mapping", diags);
                    return steps;
                }
            },
            _ => warn(&format!("rpi.{key}"), "unsupported key: ignored", diags),
        }
    }
    steps
}

fn interfaces(ifaces: &Map<String, Value>, steps: &mut Vec<Step>, diags: &mut Vec<Diag>) {
    for (name, v) in ifaces {
        let key = format!("rpi.interfaces.{name}");
        let iface = match name.as_str() {
            "spi" => "spi",
            "i2c" => "i2c",
            "onewire" => "onewire",
            "serial" => {
                match v {
                    Value::Bool(b) => steps.push(Step::Serial(*b, false)),
                    Value::Object(m) => {
                        let mut field = |f: &str| match m.get(f) {
                            None => false,
                            Some(Value::Bool(b)) => *b,
                            Some(_) => {
                                warn(
                                    &format!("{key}.{f}"),
                                    "must be true or false: false used",
                                    diags,
                                );
                                false
                            }
                        };
                        let console = field("console");
                        let hardware = field("hardware");
                        steps.push(Step::Serial(console, hardware));
                    }
                    _ => warn(&key, "must be true, false or {console, hardware}", diags),
                }
                continue;
            }
            _ => {
                warn(
                    &key,
                    "not an interface ember (or cloud-init) sets: ignored",
                    diags,
                );
                continue;
            }
        };
        match v {
            Value::Bool(b) => steps.push(Step::Interface(iface, *b)),
            _ => warn(&key, "must be true or false", diags),
        }
    }
}

const SERIAL: Shape = Shape::OneOf(&[
    Shape::Bool,
    Shape::Map(&Fields {
        fields: &[("console", Shape::Bool), ("hardware", Shape::Bool)],
        required: &[],
        open: true,
    }),
]);

const RPI: Shape = Shape::Map(&Fields {
    fields: &[
        (
            "interfaces",
            Shape::Map(&Fields {
                fields: &[
                    ("spi", Shape::Bool),
                    ("i2c", Shape::Bool),
                    ("serial", SERIAL),
                    ("onewire", Shape::Bool),
                ],
                required: &[],
                open: true,
            }),
        ),
        ("enable_usb_gadget", Shape::Bool),
    ],
    required: &[],
    open: true,
});

/// Its key's shape (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("rpi", RPI)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

fn flag(on: bool) -> &'static str {
    if on {
        "0"
    } else {
        "1"
    }
}

/// Runs one step; whether it changed something that needs the reboot.
fn apply(ctx: &ModCtx, step: &Step, diags: &mut Vec<Diag>) -> bool {
    let run = |argv: &[&str], key: &str, diags: &mut Vec<Diag>| -> bool {
        let outcome = tools::run(ctx, "raspberry_pi", argv, &[]);
        if !outcome.ok() {
            let msg = format!("{} {} {}", argv[0], argv[2..].join(" "), outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key(key.to_string()));
        }
        outcome.ok()
    };
    match step {
        Step::UsbGadget(on) => {
            let key = "rpi.enable_usb_gadget";
            if !ctx.root.exists(USB_GADGET) {
                let msg = format!("{USB_GADGET} not found in the target");
                diags.push(Diag::error(Reason::ToolMissing, msg).key(key));
                return false;
            }
            run(&[USB_GADGET, if *on { "on" } else { "off" }], key, diags)
        }
        Step::Interface(iface, on) => {
            let key = format!("rpi.interfaces.{iface}");
            let func = format!("do_{iface}");
            run(&[RASPI_CONFIG, "nonint", &func, flag(*on)], &key, diags)
        }
        Step::Serial(console, hardware) => {
            let key = "rpi.interfaces.serial";
            let pi5 = tools::run(
                ctx,
                "raspberry_pi",
                &[RASPI_CONFIG, "nonint", "is_pifive"],
                &[],
            );
            // Only the Pi 5 has two usable UARTs: elsewhere the console takes the hardware.
            let hardware = *hardware || (*console && !pi5.ok());
            let cons = [RASPI_CONFIG, "nonint", "do_serial_cons", flag(*console)];
            if !run(&cons, key, diags) {
                return false;
            }
            run(
                &[RASPI_CONFIG, "nonint", "do_serial_hw", flag(hardware)],
                key,
                diags,
            );
            true
        }
    }
}

impl RunnerModule for RaspberryPi {
    fn name(&self) -> &'static str {
        "raspberry_pi"
    }
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let steps = read(cfg, diags);
        let mut reboot = false;
        for step in &steps {
            reboot |= apply(ctx, step, diags);
        }
        if !reboot {
            return;
        }
        ctx.exec
            .say("raspberry_pi: config.txt changed; rebooting when this stage ends");
        let mut power = ctx.power.borrow_mut();
        if power.is_none() {
            let argv = ["shutdown", "-r", "now", REBOOT_MESSAGE];
            *power = Some(argv.iter().map(|s| s.to_string()).collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_in_order_and_where_reading_stops() {
        let mut d = Vec::new();
        let cfg = json!({"rpi": {"interfaces": {"spi": true, "i2c": false,
            "serial": {"console": true, "hardware": "x"}, "gpio": true},
            "enable_usb_gadget": true}});
        assert_eq!(
            read(&cfg, &mut d),
            [
                Step::UsbGadget(true),
                Step::Interface("i2c", false),
                Step::Serial(true, false),
                Step::Interface("spi", true),
            ]
        );
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(
            keys,
            ["rpi.interfaces.gpio", "rpi.interfaces.serial.hardware"]
        );
        d.clear();
        let bad = json!({"rpi": {"enable_usb_gadget": "yes", "interfaces": {"spi": true}}});
        assert_eq!(read(&bad, &mut d), []);
        assert!(d[0].is_error());
        d.clear();
        let stop = json!({"rpi": {"interfaces": [], "zz": true}});
        assert_eq!(read(&stop, &mut d), []);
        assert_eq!(d.len(), 1, "later keys are not read");
    }
}
