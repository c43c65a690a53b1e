//! SMBIOS tables for a row whose DMI the kernel does not show in /sys/class/dmi/id: the
//! row's fields as BIOS, system, baseboard and chassis structures behind a 3.0 entry point,
//! as /sys/firmware/dmi/tables holds them.

/// (structure type, offset of the field's string number, sysfs name).
const STRINGS: [(u8, u8, &str); 9] = [
    (0, 0x04, "bios_vendor"),
    (1, 0x04, "sys_vendor"),
    (1, 0x05, "product_name"),
    (1, 0x07, "product_serial"),
    (2, 0x04, "board_vendor"),
    (2, 0x05, "board_name"),
    (2, 0x07, "board_serial"),
    (3, 0x07, "chassis_serial"),
    (3, 0x08, "chassis_asset_tag"),
];

/// (entry point, table) for `fields` (sysfs names; `product_uuid` as the kernel shows it).
pub fn tables(fields: &[(&str, &str)]) -> (Vec<u8>, Vec<u8>) {
    let mut table = Vec::new();
    for (kind, len) in [(0u8, 0x18u8), (1, 0x1B), (2, 0x0F), (3, 0x15)] {
        let mut formatted = vec![0u8; usize::from(len)];
        formatted[0] = kind;
        formatted[1] = len;
        let mut strings: Vec<u8> = Vec::new();
        let mut count = 0u8;
        for (t, offset, name) in STRINGS {
            let Some((_, value)) = fields.iter().find(|(f, _)| *f == name) else {
                continue;
            };
            if t != kind {
                continue;
            }
            count += 1;
            formatted[usize::from(offset)] = count;
            strings.extend_from_slice(value.as_bytes());
            strings.push(0);
        }
        if kind == 1 {
            if let Some((_, uuid)) = fields.iter().find(|(f, _)| *f == "product_uuid") {
                formatted[0x08..0x18].copy_from_slice(&uuid_bytes(uuid));
            }
        }
        table.extend(formatted);
        if strings.is_empty() {
            strings.push(0);
        }
        table.extend(strings);
        table.push(0);
    }
    table.extend([127, 4, 0, 0, 0, 0]);
    let mut entry = b"_SM3_".to_vec();
    entry.extend([0, 0x18, 3, 0, 0, 1, 0]);
    entry.extend((table.len() as u32).to_le_bytes());
    entry.extend([0u8; 8]);
    (entry, table)
}

/// The 16 bytes SMBIOS 2.6+ stores for a UUID shown as `uuid` (first three fields
/// little-endian).
fn uuid_bytes(uuid: &str) -> [u8; 16] {
    let hex: Vec<u8> = uuid
        .chars()
        .filter(|c| *c != '-')
        .collect::<Vec<_>>()
        .chunks(2)
        .map(|p| u8::from_str_radix(&p.iter().collect::<String>(), 16).unwrap())
        .collect();
    let order = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];
    std::array::from_fn(|i| hex[order[i]])
}
