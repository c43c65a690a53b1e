//! The seam through which a module renders a Jinja template without linking Jinja: the
//! initramfs stage passes `ember_jinja::MiniJinja`; the runner's modules, which have no Jinja,
//! hand their templates to `ember-initrd render` instead.

use crate::limits::Limits;
use serde_json::Value;

pub struct Rendered {
    pub text: String,
    /// Variable paths that were printed while undefined (they rendered as empty strings).
    pub undefined: Vec<String>,
}

/// What went wrong, free of template text: minijinja's error kind and the line.
#[derive(Debug, PartialEq, Eq)]
pub struct TemplateError {
    pub what: String,
    pub line: Option<u32>,
    /// The budget that stopped the render (`template_fuel` or `template_bytes`), if one did.
    pub budget: Option<&'static str>,
}

/// Renders a template (header already removed) over `vars`, within the `template_fuel` and
/// `template_bytes` budgets of `limits`.
pub trait Jinja: Sync {
    fn render(
        &self,
        template: &str,
        vars: &Value,
        limits: &Limits,
    ) -> Result<Rendered, TemplateError>;
}
