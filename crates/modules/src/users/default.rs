//! The default user, which `users_groups` creates and `ssh` locks root out in favour of.

use serde_json::Value;

/// cloud-init's default `disable_root_opts` (ssh_util.DISABLE_USER_OPTS).
pub const DISABLE_ROOT_OPTS: &str = concat!(
    "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,",
    r#"command="echo 'Please login as the user \"$USER\" rather than the user \"$DISABLE_USER\".';echo;sleep 10;exit 142""#
);

/// The default user's name: the legacy `user` key (a name or a mapping with `name`) over
/// `system_info.default_user.name`. None when `users` is given without `default` (and no
/// `user`), since cloud-init then has no default user.
pub fn default_user(cfg: &Value) -> Option<String> {
    let legacy = match cfg.get("user") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Object(m)) => m.get("name").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    let is_default = |v: &Value| match v {
        Value::String(s) => s.split(',').any(|n| n.trim() == "default"),
        Value::Object(m) => m.get("name").and_then(Value::as_str) == Some("default"),
        _ => false,
    };
    let listed = match cfg.get("users") {
        None | Some(Value::Null) => true,
        Some(Value::Array(items)) => items.iter().any(is_default),
        Some(Value::Object(m)) => m.contains_key("default"),
        Some(v) => is_default(v),
    };
    if legacy.is_some() {
        return legacy;
    }
    let name = cfg.pointer("/system_info/default_user/name")?.as_str()?;
    (listed && !name.is_empty()).then(|| name.to_string())
}
