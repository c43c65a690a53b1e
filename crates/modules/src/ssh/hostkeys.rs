//! Host keys as cloud-init's cc_ssh makes them: image keys deleted (`ssh_deletekeys`), then
//! either the given `ssh_keys` written, or the `ssh_genkeytypes` generated. Ed25519 and ECDSA
//! are generated here; RSA (and DSA) cannot be (ring has no RSA key generation), so their
//! types are left, one per line, for the runner to make with `ssh-keygen -t TYPE -N '' -f
//! /etc/ssh/ssh_host_TYPE_key` inside the target: in `/var/lib/ember/deferred-hostkeys` for
//! `ember-hostkeys.service`, after sshd started with the keys made here (RSA takes ssh-keygen
//! seconds, 19 s under emulation), or with the image's `ember: {rsa_host_key: before-sshd}`
//! (and on GCE when the config stage publishes them) in `/var/lib/ember/pending-hostkeys` for
//! `ember init`, before sshd. The runner removes them.

use super::hostkey_settings::{GenKey, GivenKey, HostKeys, KeyPart, KeyType};
use super::openssh_format::{key_type_of, public_blob_of, public_line};
use super::{hostname, keygen, Settings};
use crate::common::accounts::Accounts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Owner, RootError};
use crate::ModuleCtx;

pub const PENDING: &str = "/var/lib/ember/pending-hostkeys";
pub const DEFERRED: &str = "/var/lib/ember/deferred-hostkeys";
const SSH_DIR: &str = "/etc/ssh";

pub fn key_path(key_type: KeyType) -> String {
    format!("{SSH_DIR}/ssh_host_{}_key", key_type.name())
}

/// The file sshd's `HostCertificate` names for a given certificate.
pub fn certificate_path(key_type: KeyType) -> String {
    format!("{}-cert.pub", key_path(key_type))
}

const PUBLIC: FileSpec = FileSpec::mode(0o644);

/// Private key files: 0600, or 0640 root:ssh_keys where the target has that group (Fedora's
/// sshd-keygen does the same, and cloud-init after generating).
fn private_spec(ctx: &ModuleCtx) -> FileSpec {
    match Accounts::load(ctx.root).group_gid("ssh_keys") {
        Some(gid) => FileSpec::mode(0o640).with_owner(Owner { uid: 0, gid }),
        None => FileSpec::mode(0o600),
    }
}

/// A given key that cannot be written fails the module, as cloud-init's `write_file` raises.
fn write_err(path: &str, e: RootError) -> Diag {
    Diag::error(Reason::SshHostkey, e.to_string()).file(path.to_string())
}

/// Deleting the image's keys and generating or deriving keys: cloud-init logs these failures
/// (`logexc`, a warning) and goes on, so they are warnings here.
fn warn_err(path: &str, e: RootError) -> Diag {
    Diag::warning(Reason::SshHostkey, e.to_string()).file(path.to_string())
}

/// Removes `/etc/ssh/ssh_host_*key*` (the image's keys, shared by every instance of it).
fn delete_image_keys(ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
    let names = match ctx.root.list_dir(SSH_DIR) {
        Ok(names) => names,
        Err(e) => return diags.push(warn_err(SSH_DIR, e)),
    };
    for name in names {
        if name
            .strip_prefix("ssh_host_")
            .is_some_and(|r| r.contains("key"))
        {
            let path = format!("{SSH_DIR}/{name}");
            if let Err(e) = ctx.root.remove_file(&path) {
                diags.push(warn_err(&path, e));
            }
        }
    }
}

/// Writes the given `ssh_keys`; a public key not given is derived from an OpenSSH-format
/// private key (cloud-init runs `ssh-keygen -y` for it).
fn write_given(ctx: &ModuleCtx, keys: &[GivenKey], diags: &mut Vec<Diag>) {
    let private = private_spec(ctx);
    for given in keys {
        let (path, spec) = match given.part {
            KeyPart::Private => (key_path(given.key_type), private),
            KeyPart::Public => (format!("{}.pub", key_path(given.key_type)), PUBLIC),
            // Certificates are public; cloud-init's 0600 protects nothing.
            KeyPart::Certificate => (certificate_path(given.key_type), PUBLIC),
        };
        // OpenSSH refuses some key files without a final newline.
        let mut data = given.text.expose().to_string();
        if !data.ends_with('\n') {
            data.push('\n');
        }
        if let Err(e) = ctx.root.write_file(&path, data.as_bytes(), &spec) {
            diags.push(write_err(&path, e).key(given.key.clone()));
        }
        if given.derive_public {
            write_derived_public(ctx, given, &path, diags);
        }
    }
}

/// The public half of a given private key, written next to it.
fn write_derived_public(ctx: &ModuleCtx, given: &GivenKey, path: &str, diags: &mut Vec<Diag>) {
    match public_blob_of(given.text.expose()) {
        Ok(blob) if key_type_of(&blob).is_some() => {
            let pub_path = format!("{path}.pub");
            let line = public_line(&blob, "root@localhost");
            if let Err(e) = ctx.root.write_file(&pub_path, line.as_bytes(), &PUBLIC) {
                diags.push(warn_err(&pub_path, e).key(given.key.clone()));
            }
        }
        _ => diags.push(
            Diag::warning(
                Reason::SshPubkeyUnderived,
                "public key not given and not derivable here (not an OpenSSH-format key)",
            )
            .key(given.key.clone()),
        ),
    }
}

/// Generates the missing keys of `ssh_genkeytypes`; returns the types left to the runner.
fn generate(ctx: &ModuleCtx, types: &[GenKey], diags: &mut Vec<Diag>) -> Vec<KeyType> {
    let private = private_spec(ctx);
    let comment = format!("root@{}", hostname(ctx));
    let mut pending = Vec::new();
    for GenKey { key_type, key } in types {
        let path = key_path(*key_type);
        match key_type {
            // Need a hardware token: ssh-keygen fails on them too, which cloud-init ignores.
            KeyType::EcdsaSk | KeyType::Ed25519Sk => {}
            _ if ctx.root.exists(&path) => {}
            KeyType::Rsa | KeyType::Dsa => pending.push(*key_type),
            KeyType::Ecdsa | KeyType::Ed25519 => match keygen::generate(*key_type, &comment) {
                Ok(g) => {
                    let pem = g.private_pem.expose().as_bytes();
                    let pub_path = format!("{path}.pub");
                    if let Err(e) = ctx.root.write_file(&path, pem, &private) {
                        diags.push(warn_err(&path, e).key(key.clone()));
                    } else if let Err(e) =
                        ctx.root
                            .write_file(&pub_path, g.public_line.as_bytes(), &PUBLIC)
                    {
                        diags.push(warn_err(&pub_path, e).key(key.clone()));
                    }
                }
                Err(why) => diags.push(
                    Diag::warning(
                        Reason::SshKeygen,
                        format!("host key generation failed: {why}"),
                    )
                    .key(key.clone()),
                ),
            },
        }
    }
    pending
}

/// Whether the runner's config stage publishes keys of this type (`ssh_publish_hostkeys`, on
/// GCE): it does so once, so they are made before sshd, by `ember init`, as before.
fn published(ctx: &ModuleCtx, settings: &Settings, t: KeyType) -> bool {
    let publish = &settings.publish;
    ctx.instance.datasource == "gce"
        && publish.enabled
        && !publish.blacklist.iter().any(|b| b == t.name())
}

/// Deletes the image's keys (once per instance), writes the given keys or generates new ones,
/// and records what the runner still has to generate, before or after sshd starts.
pub fn apply(ctx: &ModuleCtx, settings: &Settings, diags: &mut Vec<Diag>) {
    if settings.delete_image_keys {
        delete_image_keys(ctx, diags);
    }
    let pending = match &settings.host_keys {
        // cloud-init generates nothing when keys are given.
        HostKeys::Given(keys) => {
            write_given(ctx, keys, diags);
            Vec::new()
        }
        HostKeys::Generate(types) => generate(ctx, types, diags),
    };
    let (before, after): (Vec<KeyType>, Vec<KeyType>) = pending
        .into_iter()
        .partition(|t| settings.rsa_before_sshd || published(ctx, settings, *t));
    for (list, types) in [(PENDING, before), (DEFERRED, after)] {
        let result = if types.is_empty() {
            ctx.root.remove_file(list)
        } else {
            let text: String = types.iter().map(|t| format!("{}\n", t.name())).collect();
            ctx.root
                .write_file(list, text.as_bytes(), &FileSpec::mode(0o644))
        };
        if let Err(e) = result {
            diags.push(write_err(list, e));
        }
    }
}
