//! XML as the clouds read it (Azure's OVF and wireserver documents, VMware's OVF
//! environment): UTF-8 only, no DTD, a node budget, errors naming the line, never the text.

use crate::error::Diag;
use crate::reason::Reason;
use roxmltree::Document;

/// Elements, attributes and text nodes one document may hold: a real OVF has about 60.
pub const MAX_NODES: u32 = 50_000;

/// The text, or an error naming the line of the first byte that is not UTF-8.
pub fn utf8<'a>(xml: &'a [u8], file: &str) -> Result<&'a str, Diag> {
    std::str::from_utf8(xml).map_err(|e| {
        let line = line_at(xml, e.valid_up_to());
        Diag::error(Reason::XmlSyntax, "not UTF-8 text")
            .file(file)
            .line(Some(line))
    })
}

fn line_at(bytes: &[u8], at: usize) -> u32 {
    let newlines = bytes[..at.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(newlines).map_or(u32::MAX, |n| n.saturating_add(1))
}

/// Parses XML with no DTD (so no entity expansion: no billion laughs) and a node budget.
/// The message says what is wrong without quoting the input (a name could be a password's).
pub fn document<'a>(text: &'a str, file: &str) -> Result<Document<'a>, Diag> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..Default::default()
    };
    Document::parse_with_options(text, options).map_err(|e| {
        use roxmltree::Error as E;
        let what = match e {
            E::DtdDetected => "a DTD (<!DOCTYPE>) is not allowed",
            E::NodesLimitReached | E::AttributesLimitReached | E::NamespacesLimitReached => {
                "more XML nodes than ember reads in one document"
            }
            E::UnknownNamespace(..) => "an undeclared namespace prefix",
            E::UnexpectedCloseTag(..) => "a close tag that does not match its open tag",
            E::UnknownEntityReference(..) | E::MalformedEntityReference(..) => {
                "an unknown or malformed entity reference"
            }
            E::NoRootNode => "no root element",
            E::UnclosedRootNode => "the root element is not closed",
            _ => "malformed XML",
        };
        let line = match e {
            E::DtdDetected => text
                .find("<!DOCTYPE")
                .map_or(1, |at| line_at(text.as_bytes(), at)),
            _ => e.pos().row,
        };
        Diag::error(Reason::XmlSyntax, format!("not XML: {what}"))
            .file(file)
            .line(Some(line))
    })
}
