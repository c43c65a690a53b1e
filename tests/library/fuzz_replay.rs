//! The fuzz targets on the stable toolchain: every committed seed (fuzz/seeds/TARGET, which
//! keeps every input a fuzzing run found a bug with) and whatever a local run grew
//! (fuzz/corpus/TARGET) through the same entry points cargo-fuzz calls, then a few
//! deterministic mutations of each seed. A panic fails the test and names the input.

use std::path::Path;

/// splitmix64: a failure reproduces from the seed file and the round.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| {
            let p = e.ok()?.path();
            Some((p.display().to_string(), std::fs::read(&p).ok()?))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_target_survives_its_corpus_and_mutations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for (target, run) in ember::fuzz::TARGETS {
        let seeds = inputs(&root.join("seeds").join(target));
        assert!(!seeds.is_empty(), "no seeds in fuzz/seeds/{target}");
        let grown = inputs(&root.join("corpus").join(target));
        for (name, data) in seeds.iter().chain(&grown) {
            let outcome = std::panic::catch_unwind(|| run(data));
            assert!(outcome.is_ok(), "{target}: {name} panics");
        }
        for (name, data) in &seeds {
            let mut state = data.len() as u64;
            for round in 0..24 {
                state = mix(state);
                let mut m = data.clone();
                if m.is_empty() {
                    continue;
                }
                match state % 3 {
                    0 => m.truncate((state >> 8) as usize % m.len()),
                    1 => {
                        for k in 0..8 {
                            let at = (mix(state + k) as usize) % m.len();
                            m[at] = (mix(state ^ k) >> 24) as u8;
                        }
                    }
                    _ => {
                        let at = (state >> 8) as usize % m.len();
                        m.splice(at..at, data[..data.len().min(64)].iter().copied());
                    }
                }
                let outcome = std::panic::catch_unwind(|| run(&m));
                assert!(
                    outcome.is_ok(),
                    "{target}: {name}, mutation round {round}, panics"
                );
            }
        }
    }
}
