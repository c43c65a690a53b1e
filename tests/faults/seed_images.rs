//! Hand-built ISO9660 seed images for the fault suite, byte by byte, for the shapes no tool
//! writes: Rock Ridge continuation (CE) areas chained from every directory record.

pub const SECTOR: usize = 2048;
/// A continuation area at the reader's per-area cap, and a chain at its per-record cap.
const AREA_SECTORS: usize = 32;
const CHAIN: usize = 16;

fn both32(out: &mut [u8], v: u32) {
    out[..4].copy_from_slice(&v.to_le_bytes());
    out[4..8].copy_from_slice(&v.to_be_bytes());
}

/// One directory record (ECMA-119 9.1) with its system-use area.
fn record(name: &[u8], lba: u32, size: u32, dir: bool, su: &[u8]) -> Vec<u8> {
    let pad = 1 - name.len() % 2;
    let len = 33 + name.len() + pad + su.len();
    let mut r = vec![0u8; len];
    r[0] = len as u8;
    both32(&mut r[2..10], lba);
    both32(&mut r[10..18], size);
    r[25] = if dir { 2 } else { 0 };
    r[28] = 1; // volume sequence number, both-endian 16
    r[31] = 1;
    r[32] = name.len() as u8;
    r[33..33 + name.len()].copy_from_slice(name);
    r[33 + name.len() + pad..].copy_from_slice(su);
    r
}

fn ce(lba: u32, len: u32) -> Vec<u8> {
    let mut e = vec![0u8; 28];
    e[..4].copy_from_slice(&[b'C', b'E', 28, 1]);
    both32(&mut e[4..12], lba);
    both32(&mut e[20..28], len);
    e
}

fn nm(name: &str) -> Vec<u8> {
    let mut e = vec![b'N', b'M', (5 + name.len()) as u8, 1, 0];
    e.extend(name.as_bytes());
    e
}

/// A `cidata` ISO whose root holds `fillers` records, each naming a chain of 16 continuation
/// areas of 64 KiB (1 MiB of reads per record, every bound per record respected), then
/// `meta-data` (instance `id`) and an empty `user-data`.
pub fn ce_bomb(fillers: usize, id: &str) -> Vec<u8> {
    ce_chain(fillers, id, false)
}

/// `ce_bomb` whose last continuation area leads back to the first: a loop.
pub fn ce_loop(id: &str) -> Vec<u8> {
    ce_chain(1, id, true)
}

fn ce_chain(fillers: usize, id: &str, looped: bool) -> Vec<u8> {
    let meta = format!("instance-id: {id}\n");
    // Root records, packed so none crosses a sector.
    let mut recs: Vec<Vec<u8>> = Vec::new();
    let dot_su = [b'S', b'P', 7, 1, 0xBE, 0xEF, 0, b'R', b'R', 5, 1, 0x89];
    let root_secs_guess = (fillers * 68).div_ceil(SECTOR - 68) + 1;
    let root = 18u32;
    let chain = root + root_secs_guess as u32;
    let files = chain + (CHAIN * AREA_SECTORS) as u32;
    let dir_len = (root_secs_guess * SECTOR) as u32;
    recs.push(record(&[0], root, dir_len, true, &dot_su));
    recs.push(record(&[1], root, dir_len, true, &[]));
    for i in 0..fillers {
        let area = ce(chain, (AREA_SECTORS * SECTOR) as u32);
        recs.push(record(
            format!("F{i:05}").as_bytes(),
            files,
            0,
            false,
            &area,
        ));
    }
    recs.push(record(
        b"META_DAT.;1",
        files,
        meta.len() as u32,
        false,
        &nm("meta-data"),
    ));
    recs.push(record(
        b"USER_DAT.;1",
        files + 1,
        0,
        false,
        &nm("user-data"),
    ));
    let mut dir: Vec<u8> = Vec::new();
    for r in recs {
        if dir.len() % SECTOR + r.len() > SECTOR {
            dir.resize(dir.len().div_ceil(SECTOR) * SECTOR, 0);
        }
        dir.extend(r);
    }
    assert!(
        dir.len() <= dir_len as usize,
        "root directory overflows its guess"
    );
    let total = files as usize + 2;
    let mut img = vec![0u8; total * SECTOR];
    // Primary volume descriptor, then the set terminator.
    let pvd = &mut img[16 * SECTOR..17 * SECTOR];
    pvd[..7].copy_from_slice(b"\x01CD001\x01");
    pvd[40..72].copy_from_slice(format!("{:<32}", "cidata").as_bytes());
    both32(&mut pvd[80..88], total as u32);
    pvd[120..124].copy_from_slice(&[1, 0, 0, 1]);
    pvd[124..128].copy_from_slice(&[1, 0, 0, 1]);
    pvd[128..132].copy_from_slice(&[0, 8, 8, 0]);
    pvd[156..190].copy_from_slice(&record(&[0], root, dir_len, true, &[]));
    pvd[881] = 1;
    img[17 * SECTOR..17 * SECTOR + 7].copy_from_slice(b"\xffCD001\x01");
    let at = root as usize * SECTOR;
    img[at..at + dir.len()].copy_from_slice(&dir);
    // Each area but the last continues into the next one; the last loops back if asked.
    let areas = if looped { CHAIN } else { CHAIN - 1 };
    for k in 0..areas {
        let here = (chain as usize + k * AREA_SECTORS) * SECTOR;
        let next = chain + (((k + 1) % CHAIN) * AREA_SECTORS) as u32;
        img[here..here + 28].copy_from_slice(&ce(next, (AREA_SECTORS * SECTOR) as u32));
    }
    let at = files as usize * SECTOR;
    img[at..at + meta.len()].copy_from_slice(meta.as_bytes());
    img
}
