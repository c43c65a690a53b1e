//! The guestinfo transport: the hypervisor's guestinfo table through open-vm-tools'
//! `vmware-rpctool "info-get guestinfo.KEY"` (else `vmtoolsd --cmd "…"`), as cloud-init reads
//! it. The tool is the initramfs's copy when its integration added one, else the target's,
//! chrooted (`disk::tools`). ember does not speak the VMware backdoor itself: see the manual's
//! VMware section for why. Not here: what the keys mean.

use super::guestinfo::{non_empty, Transport};
use crate::child::Bounds;
use crate::context::Env;
use crate::disk::tools::Tools;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;

pub const RPCTOOL: &str = "vmware-rpctool";
pub const VMTOOLSD: &str = "vmtoolsd";
/// What both tools print on stderr (and exit 1) for a key the table does not hold.
const NO_VALUE: &str = "No value found";

pub struct Rpctool<'a> {
    tools: Tools<'a>,
    /// `vmware-rpctool`, or `vmtoolsd` when only it is there.
    program: &'static str,
    /// `vmtoolsd`, when it is there too: the tool cloud-init falls back to once.
    fallback: Option<&'static str>,
    /// One call's: the per-request deadline, and a value no larger than a seed file.
    bounds: Bounds,
    /// Why the tool was killed at its bounds, once it was: it is not asked again.
    killed: Option<String>,
}

impl<'a> Rpctool<'a> {
    /// The tool to use, or `None` when neither is in the initramfs or the target.
    pub fn find(env: &Env<'a>) -> Option<Rpctool<'a>> {
        let tools = Tools {
            host: env.host,
            target: env.target_path,
        };
        let rpctool = tools.available(RPCTOOL);
        let vmtoolsd = tools.available(VMTOOLSD).then_some(VMTOOLSD);
        let (program, fallback) = match (rpctool, vmtoolsd) {
            (true, fb) => (RPCTOOL, fb),
            (false, Some(v)) => (v, None),
            (false, None) => return None,
        };
        let limits = env.limits();
        let bounds = Bounds {
            deadline: std::time::Duration::from_millis(limits.request_timeout_ms),
            max_output: usize::try_from(limits.file_bytes).unwrap_or(usize::MAX),
        };
        Some(Rpctool {
            tools,
            program,
            fallback,
            bounds,
            killed: None,
        })
    }

    pub fn program(&self) -> &'static str {
        self.program
    }

    /// Why the tool was killed at its deadline or output budget, when it was.
    pub fn killed(&self) -> Option<&str> {
        self.killed.as_deref()
    }

    /// Runs one RPC command (`info-get guestinfo.metadata`): its stdout, or `None` for "no
    /// value". The error names the tool and the key, never a value.
    fn call(&mut self, command: &str, key: &str) -> Result<Option<String>, Diag> {
        let argv: Vec<String> = if self.program == VMTOOLSD {
            vec![VMTOOLSD.into(), "--cmd".into(), command.into()]
        } else {
            vec![RPCTOOL.into(), command.into()]
        };
        let failed = |why: String| {
            Diag::error(Reason::GuestinfoFailed, why).file(format!("guestinfo.{key}"))
        };
        if let Some(why) = &self.killed {
            return Err(failed(why.clone()));
        }
        let out = self.tools.output(&argv, self.bounds).map_err(|e| {
            if e.killed {
                self.killed = Some(e.message.clone());
            }
            failed(e.message)
        })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.trim() == NO_VALUE {
            return Ok(None);
        }
        if !out.status.success() {
            // The tool's own last line says why (no VMware hypervisor, no permission); it
            // holds no value of the table.
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
            return Err(failed(format!(
                "{} failed ({}): {}",
                self.program,
                out.status,
                last.unwrap_or("").trim()
            )));
        }
        let text = String::from_utf8(out.stdout).map_err(|_| {
            failed(format!(
                "{} printed a value that is not UTF-8",
                self.program
            ))
        })?;
        Ok(Some(text))
    }
}

impl Transport for Rpctool<'_> {
    fn key_name(&self, key: &str) -> String {
        format!("guestinfo.{key}")
    }

    /// As cloud-init: a failing `vmware-rpctool` makes way for `vmtoolsd` once.
    fn get(&mut self, key: &str) -> Result<Option<Secret<String>>, Diag> {
        let command = format!("info-get guestinfo.{key}");
        let got = match self.call(&command, key) {
            Err(_) if self.fallback.is_some() => {
                self.program = self.fallback.take().unwrap_or(VMTOOLSD);
                self.call(&command, key)
            }
            other => other,
        }?;
        Ok(got.and_then(non_empty).map(Secret::new))
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), Diag> {
        let command = format!("info-set guestinfo.{key} {value}");
        self.call(&command, key).map(|_| ())
    }
}
