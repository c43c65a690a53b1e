//! An Azure IMDS: `GET /metadata/instance?api-version=…` with `Metadata: true` required (400
//! without, as Azure answers), api-versions it knows (2021-08-01 can be refused with 400 to
//! test the fallback to 2019-06-01), the instance document modelled on Microsoft's documented
//! example, scripted faults per path; plus the ovf-env.xml of the provisioning media, as the
//! platform writes it. The wireserver is `azure_wire`; `start_with_wire` serves both on one
//! port (QEMU forwards both addresses to it).
//! <https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service>

use super::azure_wire::Posted;
use super::scripted::{self, Spec};
use super::{Answer, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const VM_ID: &str = "02aab8a4-74ef-476e-8182-f6d2ba4166a6";
/// The DMI system UUID of the tests' VM: the instance id.
pub const SYSTEM_UUID: &str = "8DAB1C22-1E2B-4E8E-8A1F-7D5E0C6B4A11";
pub const HOSTNAME: &str = "azure-vm-1";
pub const ADMIN: &str = "azureuser";
pub const MAC: &str = "00:0d:3a:04:75:98";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAzureImdsKeyForTestsOnlyX azure-key";
pub const OVF_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAzureOvfKeyForTestsOnlyXX ovf-key";
pub const PASSWORD: &str = "ovf-Passw0rd-secret-4f1a";
pub const CUSTOM_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/azure-custom\n    content: custom-data-secret-77b2\n    permissions: '0600'\n";
pub const IMDS_USER_DATA: &str =
    "#cloud-config\nwrite_files:\n  - path: /etc/azure-imds-ud\n    content: imds-user-data\n";

pub fn document() -> Value {
    use base64::Engine as _;
    let ud = base64::engine::general_purpose::STANDARD.encode(IMDS_USER_DATA);
    json!({
        "compute": {
            "azEnvironment": "AzurePublicCloud",
            "location": "westeurope",
            "name": "azure-vm-1",
            "osProfile": {"adminUsername": ADMIN, "computerName": HOSTNAME,
                          "disablePasswordAuthentication": "true"},
            "osType": "Linux",
            "platformFaultDomain": "0",
            "publicKeys": [{"keyData": KEY, "path": "/home/azureuser/.ssh/authorized_keys"}],
            "userData": ud,
            "vmId": VM_ID,
            "vmSize": "Standard_B1s",
            "zone": "1"
        },
        "network": {"interface": [{
            "ipv4": {"ipAddress": [{"privateIpAddress": "10.0.0.4", "publicIpAddress": "20.1.2.3"},
                                   {"privateIpAddress": "10.0.0.5", "publicIpAddress": ""}],
                     "subnet": [{"address": "10.0.0.0", "prefix": "24"}]},
            "ipv6": {"ipAddress": []},
            "macAddress": MAC.replace(':', "").to_ascii_uppercase()
        }]}
    })
}

/// ovf-env.xml as Azure writes it on the provisioning media; `None` leaves an element out.
pub fn ovf_env(password: Option<&str>, custom_data: Option<&str>, disable_pw_auth: bool) -> String {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let pw = password.map_or(String::new(), |p| {
        format!("<UserPassword>{p}</UserPassword>")
    });
    let cd = custom_data.map_or(String::new(), |c| {
        format!("<CustomData>{}</CustomData>", b64(c))
    });
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" xmlns:oe="http://schemas.dmtf.org/ovf/environment/1" xmlns:wa="http://schemas.microsoft.com/windowsazure" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
 <wa:ProvisioningSection>
  <wa:Version>1.0</wa:Version>
  <LinuxProvisioningConfigurationSet xmlns="http://schemas.microsoft.com/windowsazure" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
   <ConfigurationSetType>LinuxProvisioningConfiguration</ConfigurationSetType>
   <HostName>ovf-hostname</HostName>
   <UserName>{ADMIN}</UserName>
   {pw}
   <DisableSshPasswordAuthentication>{disable_pw_auth}</DisableSshPasswordAuthentication>
   <SSH><PublicKeys><PublicKey>
     <Fingerprint>EB0C0AB4B2D5FC35F2F0658D19F44C8283E2DD62</Fingerprint>
     <Path>/home/{ADMIN}/.ssh/authorized_keys</Path>
     <Value>{OVF_KEY}</Value>
   </PublicKey></PublicKeys></SSH>
   {cd}
  </LinuxProvisioningConfigurationSet>
 </wa:ProvisioningSection>
 <wa:PlatformSettingsSection>
  <wa:Version>1.0</wa:Version>
  <PlatformSettings xmlns="http://schemas.microsoft.com/windowsazure" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
   <KmsServerHostname>kms.core.windows.net</KmsServerHostname>
   <ProvisionGuestAgent>true</ProvisionGuestAgent>
   <GuestAgentPackageName i:nil="true" />
   <PreprovisionedVm>false</PreprovisionedVm>
   <PreprovisionedVMType i:nil="true" />
  </PlatformSettings>
 </wa:PlatformSettingsSection>
</Environment>
"#
    )
}

/// Faults per path are the scripted server's (`Server::set`).
pub struct Script {
    pub document: Value,
    /// The newest api-version is refused with 400, as an older IMDS does.
    pub old_api_only: bool,
}

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub script: Arc<Mutex<Script>>,
    /// Answers per path (with query), in order; the last one repeats.
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    /// The wireserver answering `/machine` paths on the same port, when started with it.
    pub wire: Option<super::azure_wire::Server>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.answers.lock().unwrap().insert(path.into(), answers);
    }
}

const KNOWN_VERSIONS: [&str; 3] = ["2019-06-01", "2021-03-01", "2021-08-01"];

/// The headers IMDS checks before anything else.
fn imds_refusal(req: &Request) -> Option<Answer> {
    if req.header("metadata") != Some("true") {
        let msg = r#"{"error": "Bad request. Required metadata header not specified"}"#;
        return Some(Answer::Body(400, msg.as_bytes().to_vec()));
    }
    if req.header("x-forwarded-for").is_some() {
        return Some(Answer::Body(400, b"Bad request".to_vec()));
    }
    None
}

fn imds_answer(sc: &Script, req: &Request) -> Answer {
    let Some((path, query)) = req.path.split_once('?') else {
        return Answer::Body(
            400,
            b"Bad request. api-version is invalid or was not specified".to_vec(),
        );
    };
    let version = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("api-version="))
        .unwrap_or_default();
    let refused = sc.old_api_only && version > "2019-06-01";
    if !KNOWN_VERSIONS.contains(&version) || refused {
        return Answer::Body(400, b"Bad request. api-version is invalid".to_vec());
    }
    match path {
        "/metadata/instance" => Answer::Body(200, sc.document.to_string().into_bytes()),
        _ => Answer::Body(404, Vec::new()),
    }
}

/// Starts the IMDS alone; it serves until the process ends.
pub fn start() -> Server {
    serve(None)
}

/// Starts the IMDS with the wireserver on the same port (`/machine…` paths).
pub fn start_with_wire() -> Server {
    serve(Some(super::azure_wire::detached()))
}

fn serve(wire: Option<super::azure_wire::Server>) -> Server {
    let script = Arc::new(Mutex::new(Script {
        document: document(),
        old_api_only: false,
    }));
    let wire2 = wire.clone();
    // The wireserver's paths go to it (with its own faults), the rest through IMDS's checks.
    let guard = move |req: &Request, body: &[u8]| match &wire2 {
        Some(w) if req.path.starts_with("/machine") => Some(w.answer(Posted {
            request: req.clone(),
            body: body.to_vec(),
        })),
        _ => imds_refusal(req),
    };
    let state = script.clone();
    let route = move |req: &Request| imds_answer(&state.lock().unwrap(), req);
    let spec = Spec::new(route).guard(guard).key(scripted::with_query);
    let server = scripted::serve(scripted::loopback(), spec);
    Server {
        port: server.port,
        log: server.log,
        script,
        answers: server.answers,
        wire,
    }
}
