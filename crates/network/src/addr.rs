//! Address syntax shared by the parsers: `addr/prefix`, netmasks, MAC addresses, durations.
//! Pure functions over text; errors are fixed sentences that never quote the input.

use std::net::IpAddr;

pub(crate) fn max_prefix(ip: IpAddr) -> u8 {
    if ip.is_ipv4() {
        32
    } else {
        128
    }
}

/// `addr` or `addr/prefix`, where the prefix may also be a netmask (`/255.255.255.0`), as
/// cloud-init accepts in v1.
pub(crate) fn cidr(text: &str) -> Result<(IpAddr, Option<u8>), String> {
    let text = text.trim();
    let (ip, prefix) = match text.split_once('/') {
        Some((ip, prefix)) => (ip, Some(prefix)),
        None => (text, None),
    };
    let ip: IpAddr = ip.parse().map_err(|_| "not an IP address".to_string())?;
    let prefix = match prefix {
        None => None,
        Some(p) => Some(prefix_len(p, ip)?),
    };
    Ok((ip, prefix))
}

/// A prefix length or a netmask of `ip`'s family.
pub(crate) fn prefix_len(text: &str, ip: IpAddr) -> Result<u8, String> {
    let max = max_prefix(ip);
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<u8>() {
            Ok(p) if p <= max => Ok(p),
            _ => Err(format!("prefix length out of range (0 to {max})")),
        };
    }
    let bits: Option<u128> = match (ip, text.parse::<IpAddr>()) {
        (IpAddr::V4(_), Ok(IpAddr::V4(m))) => Some(u128::from(u32::from(m)) << 96),
        (IpAddr::V6(_), Ok(IpAddr::V6(m))) => Some(u128::from(m)),
        _ => None,
    };
    match bits {
        // Contiguous ones from the top: the inverse plus one is a power of two (or zero).
        Some(b) if (!b).wrapping_add(1) & !b == 0 => {
            u8::try_from(b.leading_ones()).map_err(|_| String::new())
        }
        Some(_) => Err("netmask is not contiguous".into()),
        None => Err("not a prefix length or netmask".into()),
    }
}

/// A MAC address, lowercased: six bytes, or twenty (InfiniBand), two hex digits each,
/// colon-separated.
pub(crate) fn mac(text: &str) -> Option<String> {
    let text = text.trim();
    let parts = text.split(':');
    let mut n = 0;
    for p in parts {
        if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        n += 1;
    }
    (n == 6 || n == 20).then(|| text.to_ascii_lowercase())
}

pub(crate) fn scale(n: u64, unit_ms: u32) -> Option<u32> {
    u32::try_from(n.checked_mul(u64::from(unit_ms))?).ok()
}

/// A number in `unit_ms` units, or with a suffix: `ms`, `s`/`sec`, `m`/`min`.
pub(crate) fn duration_ms(text: &str, unit_ms: u32) -> Option<u32> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = text[..digits].parse().ok()?;
    let unit = match text[digits..].trim() {
        "" => unit_ms,
        "ms" | "msec" => 1,
        "s" | "sec" => 1000,
        "m" | "min" => 60_000,
        _ => return None,
    };
    scale(n, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidrs_and_netmasks() {
        let v4: IpAddr = "10.0.0.5".parse().unwrap();
        assert_eq!(cidr("10.0.0.5/24"), Ok((v4, Some(24))));
        assert_eq!(cidr(" 10.0.0.5 "), Ok((v4, None)));
        assert_eq!(cidr("10.0.0.5/255.255.240.0"), Ok((v4, Some(20))));
        assert_eq!(cidr("10.0.0.5/0.0.0.0"), Ok((v4, Some(0))));
        assert!(cidr("10.0.0.5/33").unwrap_err().contains("out of range"));
        assert!(cidr("10.0.0.5/255.0.255.0")
            .unwrap_err()
            .contains("contiguous"));
        assert!(cidr("10.0.0.5/x").is_err());
        assert!(cidr("10.0.0.256/24").is_err());
        let v6: IpAddr = "2001:db8::5".parse().unwrap();
        assert_eq!(cidr("2001:db8::5/64"), Ok((v6, Some(64))));
        assert_eq!(
            cidr("2001:db8::5/ffff:ffff:ffff:ff00::"),
            Ok((v6, Some(56)))
        );
        assert!(cidr("2001:db8::5/129").is_err());
        // A netmask of the other family is not a netmask.
        assert!(cidr("2001:db8::5/255.255.255.0").is_err());
    }

    #[test]
    fn macs() {
        assert_eq!(
            mac("52:54:00:AB:cd:01").as_deref(),
            Some("52:54:00:ab:cd:01")
        );
        assert!(mac("52:54:00:ab:cd").is_none());
        assert!(mac("52-54-00-ab-cd-01").is_none());
        assert!(mac("52:54:00:ab:cd:0g").is_none());
        let ib = ["a0"; 20].join(":");
        assert_eq!(mac(&ib), Some(ib.clone()));
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms("100", 1), Some(100));
        assert_eq!(duration_ms("15", 1000), Some(15_000));
        assert_eq!(duration_ms("250ms", 1000), Some(250));
        assert_eq!(duration_ms("2 s", 1), Some(2000));
        assert_eq!(duration_ms("1min", 1), Some(60_000));
        assert_eq!(duration_ms("5 fortnights", 1), None);
        assert_eq!(duration_ms("", 1), None);
        assert_eq!(duration_ms("99999999999", 1000), None);
    }
}
