//! A NetworkManager keyfile being built: sections in the order they were first named, keys
//! in the order they were set; and the connection UUIDs, derived from the connection's name
//! as cloud-init derives them, so the same config always gives the same files.

/// The namespace of cloud-init's connection UUIDs (uuid5 over the interface name).
const NAMESPACE: [u8; 16] = [
    0xa3, 0x92, 0x4c, 0xb8, 0x09, 0xe0, 0x43, 0xe9, 0x89, 0x0b, 0x77, 0x97, 0x2a, 0x80, 0x01, 0x08,
];

/// The UUID (RFC 4122 version 5) of `name` in cloud-init's namespace. SHA-1 is what version 5
/// is defined with; it serves as a stable name here, not for security.
pub(crate) fn uuid(name: &str) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(&NAMESPACE);
    ctx.update(name.as_bytes());
    let digest = ctx.finish();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest.as_ref()[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

#[derive(Default)]
pub(crate) struct Keyfile {
    sections: Vec<(&'static str, Vec<(String, String)>)>,
}

impl Keyfile {
    /// The section's keys, the section added (empty) if it is not there yet.
    pub(crate) fn section(&mut self, name: &'static str) -> &mut Vec<(String, String)> {
        let at = match self.sections.iter().position(|(s, _)| *s == name) {
            Some(at) => at,
            None => {
                self.sections.push((name, Vec::new()));
                self.sections.len() - 1
            }
        };
        &mut self.sections[at].1
    }

    pub(crate) fn set(
        &mut self,
        section: &'static str,
        key: impl Into<String>,
        value: impl ToString,
    ) {
        self.section(section).push((key.into(), value.to_string()));
    }

    /// Whether the section is there.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.sections.iter().any(|(s, _)| *s == name)
    }

    /// Sets `keys` first in their section, in their order.
    pub(crate) fn set_first(&mut self, section: &'static str, keys: &[(&str, &str)]) {
        let at = self.section(section);
        for (n, (k, v)) in keys.iter().enumerate() {
            at.insert(n, (k.to_string(), v.to_string()));
        }
    }

    /// `header`, then each section and its `key=value` lines, each section followed by an
    /// empty line.
    pub(crate) fn text(&self, header: &str) -> String {
        let mut s = header.to_string();
        for (name, keys) in &self.sections {
            s.push_str(&format!("[{name}]\n"));
            for (k, v) in keys {
                s.push_str(&format!("{k}={v}\n"));
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_cloud_inits() {
        // What cloud-init 22.4 writes for these names.
        assert_eq!(uuid("nic0"), "fe469a09-e9ba-5bd9-9554-a65cb1176a9a");
        assert_eq!(uuid("bond0"), "54317911-f840-516b-a10d-82cb4c1f075c");
        assert_eq!(uuid("bond0.42"), "d608e849-9979-5755-baaf-edb947d0a9b4");
    }

    #[test]
    fn sections_keep_their_first_place() {
        let mut k = Keyfile::default();
        k.set("connection", "id", "x");
        k.section("ethernet");
        k.set("ipv4", "method", "auto");
        k.set("connection", "type", "ethernet");
        assert_eq!(
            k.text("# h\n\n"),
            "# h\n\n[connection]\nid=x\ntype=ethernet\n\n[ethernet]\n\n[ipv4]\nmethod=auto\n\n"
        );
    }
}
