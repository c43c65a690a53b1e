//! The account files of a Debian-like target root as an image ships them before its first
//! boot, written the same way by every test that needs them.

use std::path::Path;

/// root, system groups and at most one default user (uid and gid 1000, with its home), in
/// /etc/passwd and /etc/group; /etc/shadow and /etc/gshadow only when asked for, as not every
/// test's image has them.
pub struct Accounts<'a> {
    shell: &'a str,
    groups: Vec<(&'a str, u32)>,
    user: Option<&'a str>,
    shadow: bool,
    gshadow: bool,
}

impl<'a> Accounts<'a> {
    /// root alone, with bash; no shadow files.
    pub fn root() -> Self {
        Accounts {
            shell: "/bin/bash",
            groups: Vec::new(),
            user: None,
            shadow: false,
            gshadow: false,
        }
    }

    /// Every account's login shell (busybox targets have no bash).
    pub fn shell(mut self, shell: &'a str) -> Self {
        self.shell = shell;
        self
    }

    /// A group without members, listed after root's.
    pub fn group(mut self, name: &'a str, gid: u32) -> Self {
        self.groups.push((name, gid));
        self
    }

    /// The image's default user, listed last.
    pub fn user(mut self, name: &'a str) -> Self {
        self.user = Some(name);
        self
    }

    /// /etc/shadow, every password locked.
    pub fn shadow(mut self) -> Self {
        self.shadow = true;
        self
    }

    pub fn gshadow(mut self) -> Self {
        self.gshadow = true;
        self
    }

    /// Writes the files under `target`, and the user's home.
    pub fn write(&self, target: &Path) {
        let shell = self.shell;
        let mut passwd = format!("root:x:0:0:root:/root:{shell}\n");
        let mut shadow = String::from("root:*:19000:0:99999:7:::\n");
        let mut group = String::from("root:x:0:\n");
        let mut gshadow = String::from("root:*::\n");
        for (name, gid) in &self.groups {
            group.push_str(&format!("{name}:x:{gid}:\n"));
            gshadow.push_str(&format!("{name}:*::\n"));
        }
        if let Some(user) = self.user {
            passwd.push_str(&format!("{user}:x:1000:1000::/home/{user}:{shell}\n"));
            shadow.push_str(&format!("{user}:!:19000:0:99999:7:::\n"));
            group.push_str(&format!("{user}:x:1000:\n"));
            gshadow.push_str(&format!("{user}:!::\n"));
            std::fs::create_dir_all(target.join("home").join(user)).unwrap();
        }
        let etc = target.join("etc");
        std::fs::create_dir_all(&etc).unwrap();
        std::fs::write(etc.join("passwd"), passwd).unwrap();
        std::fs::write(etc.join("group"), group).unwrap();
        if self.shadow {
            std::fs::write(etc.join("shadow"), shadow).unwrap();
        }
        if self.gshadow {
            std::fs::write(etc.join("gshadow"), gshadow).unwrap();
        }
    }
}
