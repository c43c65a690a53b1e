//! Three TPM 2.0 commands spoken directly to the kernel's resource manager (`/dev/tpmrm0`),
//! no tpm2-tss: which PCR banks are active (TPM2_GetCapability), extend a PCR in all of them
//! at once (TPM2_PCR_Extend) and read one back (TPM2_PCR_Read). Byte layouts from the TPM 2.0
//! Library, Part 2 (structures) and Part 3 (commands); every integer is big-endian.
//!
//! A path that is a Unix socket is spoken to the same way (swtpm's `--server type=unixio`):
//! the tests' TPM, and a way to check ember's measurements on a workstation.

use super::bank::Bank;
use crate::bounds::TPM_COMMAND;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

const ST_NO_SESSIONS: u16 = 0x8001;
const ST_SESSIONS: u16 = 0x8002;
const CC_PCR_EXTEND: u32 = 0x0182;
const CC_GET_CAPABILITY: u32 = 0x017A;
const CC_PCR_READ: u32 = 0x017E;
const CAP_PCRS: u32 = 0x0000_0005;
/// The password session with an empty password, which PCRs 0-16 and 23 take.
const RS_PW: u32 = 0x4000_0009;
/// Answers that mean "ask again": TPM_RC_YIELDED, TPM_RC_TESTING, TPM_RC_RETRY.
const RETRY_CODES: [u32; 3] = [0x908, 0x90A, 0x922];
/// Larger than any answer to these commands; the kernel's buffer is 4 KiB.
const MAX_RESPONSE: usize = 4096;

/// A TPM's command channel: one whole command in, one whole response out.
pub trait Transport {
    fn transact(&mut self, command: &[u8], deadline: Instant) -> Result<Vec<u8>, String>;
}

/// `/dev/tpmrm0` (or a socket standing for it).
pub enum Device {
    /// Opened non-blocking: the write queues the command and a poll bounds the wait. `None`
    /// once a command went unanswered: see `give_up`.
    Char(Option<std::fs::File>),
    Socket(UnixStream),
}

/// The kernel's `close` of /dev/tpmrm0 waits for a command in flight to finish, up to the
/// driver's own timeouts (minutes on some chips): the descriptor of a command that did not
/// answer in time is left open, so the boot goes on now and the process's exit waits instead.
fn give_up(file: &mut Option<std::fs::File>) {
    if let Some(f) = file.take() {
        std::mem::forget(f);
    }
}

impl Device {
    /// The TPM at `path`; `Ok(None)` when there is none.
    pub fn open(path: &Path) -> Result<Option<Device>, String> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let opened = if meta.file_type().is_socket() {
            UnixStream::connect(path).map(Device::Socket)
        } else {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc_nonblock())
                .open(path)
                .map(|f| Device::Char(Some(f)))
        };
        opened
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

fn libc_nonblock() -> i32 {
    rustix::fs::OFlags::NONBLOCK.bits() as i32
}

fn remaining(deadline: Instant) -> Result<Duration, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(format!("no answer within {} s", TPM_COMMAND.as_secs()));
    }
    Ok(left)
}

impl Transport for Device {
    fn transact(&mut self, command: &[u8], deadline: Instant) -> Result<Vec<u8>, String> {
        let mut buf = vec![0; MAX_RESPONSE];
        let n = match self {
            Device::Char(file) => {
                let Some(f) = file.as_mut() else {
                    return Err("the TPM did not answer an earlier command".into());
                };
                f.write_all(command).map_err(|e| format!("write: {e}"))?;
                loop {
                    let left = match remaining(deadline) {
                        Ok(left) => left,
                        Err(e) => {
                            give_up(file);
                            return Err(e);
                        }
                    };
                    let mut fds = [rustix::event::PollFd::new(f, rustix::event::PollFlags::IN)];
                    let ms = left.as_millis().min(i32::MAX as u128) as i32;
                    let timeout =
                        rustix::event::Timespec::try_from(Duration::from_millis(ms as u64))
                            .map_err(|e| format!("poll: {e}"))?;
                    match rustix::event::poll(&mut fds, Some(&timeout)) {
                        Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                        Ok(_) => break,
                        Err(e) => return Err(format!("poll: {e}")),
                    }
                }
                let f = file.as_mut().expect("kept while it answers");
                f.read(&mut buf).map_err(|e| format!("read: {e}"))?
            }
            Device::Socket(s) => {
                s.set_read_timeout(Some(remaining(deadline)?))
                    .map_err(|e| e.to_string())?;
                s.write_all(command).map_err(|e| format!("write: {e}"))?;
                read_response(s, &mut buf)?
            }
        };
        buf.truncate(n);
        Ok(buf)
    }
}

/// A socket may deliver the response in pieces: read the header, then what it says is left.
fn read_response(s: &mut UnixStream, buf: &mut [u8]) -> Result<usize, String> {
    let mut got = 0;
    while got < 10 || got < be32(&buf[2..6]) as usize {
        let n = s.read(&mut buf[got..]).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                format!("no answer within {} s", TPM_COMMAND.as_secs())
            }
            _ => format!("read: {e}"),
        })?;
        if n == 0 {
            return Err("the TPM closed the connection".into());
        }
        got += n;
        if got >= 10 && be32(&buf[2..6]) as usize > buf.len() {
            return Err("a response larger than any this command has".into());
        }
    }
    Ok(got)
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// A command: the header (tag, size, code) and the body.
fn command(tag: u16, code: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(10 + body.len());
    out.extend_from_slice(&tag.to_be_bytes());
    out.extend_from_slice(&((10 + body.len()) as u32).to_be_bytes());
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// Sends `cmd` until the TPM stops saying it is busy, within one bound; the response's body.
fn call(t: &mut dyn Transport, what: &str, cmd: &[u8]) -> Result<Vec<u8>, String> {
    let deadline = Instant::now() + TPM_COMMAND;
    loop {
        let resp = t
            .transact(cmd, deadline)
            .map_err(|e| format!("{what}: {e}"))?;
        if resp.len() < 10 {
            return Err(format!("{what}: a response of {} bytes", resp.len()));
        }
        let tag = be16(&resp[0..2]);
        // QEMU answers for a TPM emulator that died with a TPM 1.2 tag; nothing else is ours.
        if tag != ST_NO_SESSIONS && tag != ST_SESSIONS {
            return Err(format!("{what}: not a TPM 2.0 response (tag {tag:#06x})"));
        }
        if be32(&resp[2..6]) as usize != resp.len() {
            return Err(format!("{what}: a response whose size does not match"));
        }
        match be32(&resp[6..10]) {
            0 => return Ok(resp[10..].to_vec()),
            rc if RETRY_CODES.contains(&rc) => {
                remaining(deadline).map_err(|e| format!("{what}: {e}"))?;
                std::thread::sleep(Duration::from_millis(20));
            }
            rc => return Err(format!("{what}: the TPM answered {rc:#x}")),
        }
    }
}

/// The banks the TPM has PCRs allocated in. An active bank ember cannot compute (SM3) is an
/// error: extending the others would leave it unmeasured for a verifier that reads it.
pub fn active_banks(t: &mut dyn Transport) -> Result<Vec<Bank>, String> {
    let mut body = Vec::new();
    body.extend_from_slice(&CAP_PCRS.to_be_bytes());
    body.extend_from_slice(&0u32.to_be_bytes()); // property
    body.extend_from_slice(&1u32.to_be_bytes()); // propertyCount
    let what = "TPM2_GetCapability(PCRS)";
    let r = call(t, what, &command(ST_NO_SESSIONS, CC_GET_CAPABILITY, &body))?;
    let short = || format!("{what}: a truncated answer");
    // moreData u8, capability u32, TPML_PCR_SELECTION {count u32, {hash u16, size u8, bits}}.
    let count = be32(r.get(5..9).ok_or_else(short)?) as usize;
    let mut at = 9;
    let mut banks = Vec::new();
    for _ in 0..count.min(16) {
        let alg = be16(r.get(at..at + 2).ok_or_else(short)?);
        let size = *r.get(at + 2).ok_or_else(short)? as usize;
        let bits = r.get(at + 3..at + 3 + size).ok_or_else(short)?;
        at += 3 + size;
        if bits.iter().all(|b| *b == 0) {
            continue; // implemented, not allocated
        }
        match Bank::from_alg_id(alg) {
            Some(bank) => banks.push(bank),
            None => {
                return Err(format!(
                    "{what}: an active bank ember cannot hash ({alg:#06x})"
                ))
            }
        }
    }
    if banks.is_empty() {
        return Err(format!("{what}: no active PCR bank"));
    }
    Ok(banks)
}

/// Extends `pcr` in every bank given, in one command: TPMI_DH_PCR, the password session,
/// then TPML_DIGEST_VALUES.
pub fn extend(t: &mut dyn Transport, pcr: u32, digests: &[(Bank, Vec<u8>)]) -> Result<(), String> {
    let mut body = Vec::new();
    body.extend_from_slice(&pcr.to_be_bytes());
    body.extend_from_slice(&9u32.to_be_bytes()); // authorizationSize
    body.extend_from_slice(&RS_PW.to_be_bytes());
    body.extend_from_slice(&[0, 0, 0, 0, 0]); // nonce (empty), attributes, hmac (empty)
    body.extend_from_slice(&(digests.len() as u32).to_be_bytes());
    for (bank, d) in digests {
        body.extend_from_slice(&bank.alg_id().to_be_bytes());
        body.extend_from_slice(d);
    }
    let what = format!("TPM2_PCR_Extend(PCR {pcr})");
    call(t, &what, &command(ST_SESSIONS, CC_PCR_EXTEND, &body)).map(drop)
}

/// PCR `pcr`'s value in `bank`.
pub fn read(t: &mut dyn Transport, pcr: u32, bank: Bank) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    body.extend_from_slice(&1u32.to_be_bytes());
    body.extend_from_slice(&bank.alg_id().to_be_bytes());
    let mut bits = [0u8; 3];
    bits[(pcr / 8) as usize % 3] = 1 << (pcr % 8);
    body.push(3);
    body.extend_from_slice(&bits);
    let what = format!("TPM2_PCR_Read(PCR {pcr}, {})", bank.name());
    let r = call(t, &what, &command(ST_NO_SESSIONS, CC_PCR_READ, &body))?;
    // pcrUpdateCounter u32, TPML_PCR_SELECTION (1 + 2 + 1 + 3 here), TPML_DIGEST.
    let short = || format!("{what}: a truncated answer");
    let sel_count = be32(r.get(4..8).ok_or_else(short)?) as usize;
    let mut at = 8;
    for _ in 0..sel_count.min(16) {
        let size = *r.get(at + 2).ok_or_else(short)? as usize;
        at += 3 + size;
    }
    let n = be32(r.get(at..at + 4).ok_or_else(short)?);
    if n != 1 {
        return Err(format!("{what}: {n} digests in the answer"));
    }
    let size = be16(r.get(at + 4..at + 6).ok_or_else(short)?) as usize;
    let value = r.get(at + 6..at + 6 + size).ok_or_else(short)?;
    if size != bank.size() {
        return Err(format!("{what}: a digest of {size} bytes"));
    }
    Ok(value.to_vec())
}

#[cfg(test)]
pub mod fake {
    //! A TPM in memory, enough for the three commands, to test what ember sends and how it
    //! takes failures; the real one (swtpm) is in tests/ and qemu-tests/.
    use super::*;

    pub struct FakeTpm {
        pub banks: Vec<Bank>,
        pub pcrs: Vec<(Bank, Vec<u8>)>,
        pub sent: Vec<Vec<u8>>,
        /// Canned answers, taken before the model answers.
        pub canned: Vec<Vec<u8>>,
        /// The command (counted from 1) the TPM fails with TPM_RC_FAILURE.
        pub fail_at: Option<usize>,
    }

    impl FakeTpm {
        pub fn new(banks: &[Bank]) -> FakeTpm {
            let pcrs = banks.iter().map(|b| (*b, b.reset_value())).collect();
            FakeTpm {
                banks: banks.to_vec(),
                pcrs,
                sent: Vec::new(),
                canned: Vec::new(),
                fail_at: None,
            }
        }

        fn answer(tag: u16, rc: u32, body: &[u8]) -> Vec<u8> {
            let mut out = command(tag, rc, body);
            out.truncate(10 + body.len());
            out
        }
    }

    impl Transport for FakeTpm {
        fn transact(&mut self, cmd: &[u8], _deadline: Instant) -> Result<Vec<u8>, String> {
            self.sent.push(cmd.to_vec());
            if self.fail_at == Some(self.sent.len()) {
                return Ok(error(ST_NO_SESSIONS, 0x101));
            }
            if !self.canned.is_empty() {
                return Ok(self.canned.remove(0));
            }
            match be32(&cmd[6..10]) {
                CC_GET_CAPABILITY => {
                    let mut body = vec![0, 0, 0, 0, 5];
                    body.extend_from_slice(&(Bank::ALL.len() as u32).to_be_bytes());
                    for b in Bank::ALL {
                        body.extend_from_slice(&b.alg_id().to_be_bytes());
                        let on = if self.banks.contains(&b) { 0xff } else { 0 };
                        body.extend_from_slice(&[3, on, on, on]);
                    }
                    Ok(Self::answer(ST_NO_SESSIONS, 0, &body))
                }
                CC_PCR_EXTEND => {
                    let count = be32(&cmd[27..31]) as usize;
                    let mut at = 31;
                    for _ in 0..count {
                        let bank = Bank::from_alg_id(be16(&cmd[at..at + 2])).unwrap();
                        let d = &cmd[at + 2..at + 2 + bank.size()];
                        if let Some((_, v)) = self.pcrs.iter_mut().find(|(b, _)| *b == bank) {
                            *v = bank.extend(v, d);
                        }
                        at += 2 + bank.size();
                    }
                    Ok(Self::answer(ST_SESSIONS, 0, &[0, 0, 0, 0, 0, 0, 1, 0, 0]))
                }
                CC_PCR_READ => {
                    let bank = Bank::from_alg_id(be16(&cmd[14..16])).unwrap();
                    let v = &self.pcrs.iter().find(|(b, _)| *b == bank).unwrap().1;
                    let mut body = vec![0, 0, 0, 1];
                    body.extend_from_slice(&cmd[10..20]);
                    body.extend_from_slice(&1u32.to_be_bytes());
                    body.extend_from_slice(&(v.len() as u16).to_be_bytes());
                    body.extend_from_slice(v);
                    Ok(Self::answer(ST_NO_SESSIONS, 0, &body))
                }
                _ => Ok(Self::answer(ST_NO_SESSIONS, 0x143, &[])),
            }
        }
    }

    pub fn error(tag: u16, rc: u32) -> Vec<u8> {
        FakeTpm::answer(tag, rc, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;

    /// Expected: the bytes swtpm took (and tpm2_pcrread confirmed) for an extend of PCR 12 in
    /// the sha256 bank: header, handle, a 9-byte password session, one digest.
    #[test]
    fn an_extend_is_the_command_a_real_tpm_takes() {
        let mut tpm = FakeTpm::new(&[Bank::Sha256]);
        let d = Bank::Sha256.digest(b"ember-test:hello");
        extend(&mut tpm, 12, &[(Bank::Sha256, d.clone())]).unwrap();
        let mut want = vec![0x80, 0x02, 0, 0, 0, 0x41, 0, 0, 0x01, 0x82, 0, 0, 0, 12];
        want.extend_from_slice(&[
            0, 0, 0, 9, 0x40, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x0b,
        ]);
        want.extend_from_slice(&d);
        assert_eq!(tpm.sent[0], want);
        let got = read(&mut tpm, 12, Bank::Sha256).unwrap();
        assert_eq!(got, Bank::Sha256.extend(&[0; 32], &d));
    }

    #[test]
    fn only_allocated_banks_are_active() {
        let mut tpm = FakeTpm::new(&[Bank::Sha1, Bank::Sha256]);
        assert_eq!(
            active_banks(&mut tpm).unwrap(),
            vec![Bank::Sha1, Bank::Sha256]
        );
    }

    /// Expected: a busy TPM is asked again; an error, QEMU's answer for a dead emulator (a
    /// TPM 1.2 tag) and a short answer are errors naming the command.
    #[test]
    fn failures_are_errors_and_busy_is_retried() {
        let mut tpm = FakeTpm::new(&[Bank::Sha256]);
        tpm.canned = vec![error(ST_SESSIONS, 0x922)];
        let d = Bank::Sha256.digest(b"x");
        extend(&mut tpm, 12, &[(Bank::Sha256, d.clone())]).unwrap();
        assert_eq!(tpm.sent.len(), 2);
        for (answer, says) in [
            (error(ST_NO_SESSIONS, 0x101), "answered 0x101"),
            (error(0x00C4, 9), "not a TPM 2.0 response"),
            (vec![0x80, 0x01, 0, 0], "a response of 4 bytes"),
        ] {
            tpm.canned = vec![answer];
            let e = extend(&mut tpm, 12, &[(Bank::Sha256, d.clone())]).unwrap_err();
            assert!(
                e.contains("TPM2_PCR_Extend(PCR 12)") && e.contains(says),
                "{e}"
            );
        }
    }

    #[test]
    fn an_active_bank_ember_cannot_hash_is_an_error() {
        let mut tpm = FakeTpm::new(&[Bank::Sha256]);
        let mut body = vec![0, 0, 0, 0, 5, 0, 0, 0, 1, 0x00, 0x12, 3, 0xff, 0xff, 0xff];
        let mut answer = command(ST_NO_SESSIONS, 0, &body);
        answer.truncate(10 + body.len());
        body.clear();
        tpm.canned = vec![answer];
        let e = active_banks(&mut tpm).unwrap_err();
        assert!(e.contains("0x0012"), "{e}");
    }
}
