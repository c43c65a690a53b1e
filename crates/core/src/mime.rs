//! The few MIME facts both binaries need: a header parameter's encoding (`make-mime`), the
//! part-handler type and a type fit for a message (the runner's part handlers). Reading MIME
//! user-data is the initramfs side's (`ember::userdata`).

/// cloud-init's type for a bare (non-MIME) payload.
pub const NOT_MULTIPART: &str = "text/x-not-multipart";
/// A Python part-handler's type.
pub const PART_HANDLER: &str = "text/part-handler";

/// Characters RFC 2231 (as RFC 5987's `attr-char`) lets an extended value hold unencoded.
fn attr_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b)
}

/// `name="value"` for a header parameter, as a quoted string when `value` is printable ASCII
/// with no `"` or `\`, else RFC 2231's `name*=utf-8''…` with every other byte
/// percent-encoded: no value can end the parameter, the header or the header block early.
pub fn encode_param(name: &str, value: &str) -> String {
    let quotable = value
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if quotable {
        return format!("{name}=\"{value}\"");
    }
    let mut out = format!("{name}*=utf-8''");
    for b in value.bytes() {
        if attr_char(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A MIME type (user-controlled) fit for a message: token characters only, bounded length.
pub fn shown_type(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "/.+-_".contains(*c))
        .take(64)
        .collect()
}
