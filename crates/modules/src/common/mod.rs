//! What several modules share and none owns: the target's accounts (`/etc/passwd`, `group`,
//! `shadow` read), commands run in the target (`exec`), os-release and PATH lookups (`distro`),
//! the shell words and quoting modules write (`shell`), the tools a system module calls
//! (`system_tools`), Python's truthiness and `str()` (`pyvalue`), 0600 files for secrets handed
//! to a tool (`private_io`), and the configuration-management modules' service handling and
//! writers (`cfgmgmt`), and the target's package manager (`package_manager`). A module's own
//! helpers stay in its folder.

pub mod accounts;
pub mod cfgmgmt;
pub mod distro;
pub mod exec;
pub mod package_manager;
pub(crate) mod private_io;
pub(crate) mod pyvalue;
pub mod shell;
pub(crate) mod system_tools;
