//! `ssh_redirect_user`: the cloud's public keys in the user's authorized_keys, each line telling
//! whoever logs in with it to use the default user instead (cloud-init's disable-user options,
//! as `disable_root` uses them for root).

use super::authorized_keys::{add_keys, with_options};
use super::default::{default_user, DISABLE_ROOT_OPTS};
use crate::common::accounts::Account;
use crate::error::Diag;
use crate::reason::Reason;
use crate::ModuleCtx;

pub fn apply(ctx: &ModuleCtx, account: &Account, key: &str, diags: &mut Vec<Diag>) {
    let key = format!("{key}.ssh_redirect_user");
    let Some(default) = default_user(ctx.cfg) else {
        let msg = "no default user to redirect logins to (users: [default, ...]): ignored";
        return diags.push(Diag::warning(Reason::NoDefaultUser, msg).key(key));
    };
    let keys = &ctx.instance.public_keys;
    if keys.is_empty() {
        let msg = "the cloud gave no public keys: logins are not redirected";
        return diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(key));
    }
    let opts = DISABLE_ROOT_OPTS
        .replace("$USER", &default)
        .replace("$DISABLE_USER", &account.name);
    let lines: Vec<String> = keys.iter().map(|k| with_options(&k.key, &opts)).collect();
    if let Err(d) = add_keys(ctx.root, account, &lines) {
        diags.push(d.key(key));
    }
}
