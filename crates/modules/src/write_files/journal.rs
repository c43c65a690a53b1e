//! Appends already made for this instance, so a rerun of the module (it reruns after any
//! failed item, until it finishes clean) does not append the same content twice. Entries are
//! digests of (item index, path, content): the journal never holds the content itself.

use crate::root::{FileSpec, Root, RootError};
use crate::state::{encode_instance_id, EMBER_LIB};

const MAX_BYTES: u64 = 1024 * 1024;

pub struct Journal<'a> {
    root: &'a Root,
    path: String,
    done: Vec<String>,
}

impl<'a> Journal<'a> {
    pub fn load(root: &'a Root, instance_id: &str) -> Journal<'a> {
        let path = format!(
            "{EMBER_LIB}/instances/{}/write_files.appended",
            encode_instance_id(instance_id)
        );
        let text = root
            .read_file(&path, MAX_BYTES)
            .ok()
            .flatten()
            .unwrap_or_default();
        let done = String::from_utf8_lossy(&text)
            .lines()
            .map(str::to_string)
            .collect();
        Journal { root, path, done }
    }

    pub fn entry(index: usize, path: &str, content: &[u8]) -> String {
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        // Lengths first, so no two different items hash the same bytes.
        for part in [index.to_string().as_bytes(), path.as_bytes(), content] {
            ctx.update(&(part.len() as u64).to_le_bytes());
            ctx.update(part);
        }
        ctx.finish()
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    pub fn contains(&self, entry: &str) -> bool {
        self.done.iter().any(|d| d == entry)
    }

    /// Records an append just made (0600: even digests of secrets stay private).
    pub fn record(&mut self, entry: String) -> Result<(), RootError> {
        self.done.push(entry);
        let text = self.done.join("\n") + "\n";
        self.root
            .write_file(&self.path, text.as_bytes(), &FileSpec::mode(0o600))
    }
}
