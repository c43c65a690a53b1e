//! The golden harnesses of the renderer tests, over the trees under `tests/golden/`: `harness`
//! (networkd, netplan: every input under `inputs/` against `<renderer>/<case>/`) and
//! `case_dirs` (ENI, NetworkManager: each case folder holds its own input).

pub mod case_dirs;
pub mod harness;
