//! disk_setup layouts turned into partition plans: pure, no disk. Sizes are percentages of
//! the whole disk in sectors, the last partition takes the rest, types per table kind, and
//! every refusal names the list index.

use ember::disk::gpt::Guid;
use ember::disk::layout::{part_type, plan, NewPart, PartType};
use ember::disk::table::TableKind::{Gpt, Mbr};
use serde_json::{json, Value};

const GIB: u64 = 1 << 30;
const LINUX: &str = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
const SWAP: &str = "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F";

fn guid(s: &str) -> PartType {
    PartType::Gpt(Guid::parse(s).unwrap())
}

fn part(sectors: Option<u64>, type_: PartType) -> NewPart {
    NewPart { sectors, type_ }
}

#[test]
fn true_is_one_partition_over_the_whole_disk() {
    assert_eq!(
        plan(&json!(true), Mbr, GIB, 512).unwrap(),
        [part(None, PartType::Mbr(0x83))]
    );
    assert_eq!(
        plan(&json!(true), Gpt, GIB, 4096).unwrap(),
        [part(None, guid(LINUX))]
    );
    assert_eq!(plan(&json!(false), Gpt, GIB, 512).unwrap(), []);
}

#[test]
fn percentages_of_the_disk_and_the_last_takes_the_rest() {
    let sectors = GIB / 512;
    let cases: &[(Value, Vec<NewPart>)] = &[
        (
            json!([33, [33, 82], 33]),
            vec![
                part(Some(sectors * 33 / 100), PartType::Mbr(0x83)),
                part(Some(sectors * 33 / 100), PartType::Mbr(0x82)),
                part(None, PartType::Mbr(0x83)),
            ],
        ),
        // The last entry's percentage does not limit it, as in cloud-init.
        (
            json!([50, 10]),
            vec![
                part(Some(sectors / 2), PartType::Mbr(0x83)),
                part(None, PartType::Mbr(0x83)),
            ],
        ),
        (
            json!([[25, "0x7"], [25, "ef"], [25, "L"]]),
            vec![
                part(Some(sectors / 4), PartType::Mbr(0x07)),
                part(Some(sectors / 4), PartType::Mbr(0xef)),
                part(None, PartType::Mbr(0x83)),
            ],
        ),
        (
            json!([12.5, 50]),
            vec![
                part(Some(sectors / 8), PartType::Mbr(0x83)),
                part(None, PartType::Mbr(0x83)),
            ],
        ),
    ];
    for (layout, want) in cases {
        assert_eq!(&plan(layout, Mbr, GIB, 512).unwrap(), want, "{layout}");
    }
}

#[test]
fn gpt_types_are_sgdisk_codes_or_guids() {
    let sectors = GIB / 4096;
    let got = plan(
        &json!([
            [10, 82],
            [10, "8200"],
            [10, "EF00"],
            [10, LINUX.to_lowercase()],
            60
        ]),
        Gpt,
        GIB,
        4096,
    )
    .unwrap();
    let esp = guid("C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
    assert_eq!(
        got,
        [
            part(Some(sectors / 10), guid(SWAP)),
            part(Some(sectors / 10), guid(SWAP)),
            part(Some(sectors / 10), esp),
            part(Some(sectors / 10), guid(LINUX)),
            part(None, guid(LINUX)),
        ]
    );
    assert_eq!(part_type(&json!(8300), Gpt).unwrap(), guid(LINUX));
    assert_eq!(
        part_type(&json!("8e"), Gpt).unwrap(),
        guid("E6D6D379-F507-44C2-A23C-238F2A3DF928")
    );
    assert_eq!(part_type(&json!(83), Mbr).unwrap(), PartType::Mbr(0x83));
    assert_eq!(part_type(&json!("0x8E"), Mbr).unwrap(), PartType::Mbr(0x8e));
}

#[test]
fn refusals_name_the_index() {
    let cases: &[(Value, &str)] = &[
        (
            json!([60, 50]),
            "layout[1]: the percentages add up to 110, over 100",
        ),
        (
            json!([50, "half"]),
            "layout[1]: the percentage \"half\" is not a number",
        ),
        (
            json!([[50, 83, 1]]),
            "layout[0]: a pair is [percent, type], 2 items",
        ),
        (
            json!([0, 100]),
            "layout[0]: the percentage 0 is not a number above 0",
        ),
        (json!([-5]), "layout[0]: the percentage -5"),
        (
            json!([[20, "zz"], 80]),
            "layout[0]: type \"zz\" is not an MBR type byte",
        ),
        (
            json!([[20, 8300], 80]),
            "layout[0]: type 8300 is not an MBR type byte",
        ),
        (
            json!([[20, 5], 80]),
            "layout[0]: type 5 is an extended or protective type",
        ),
        (
            json!([20, [80, true]]),
            "layout[1]: type true is not a number or a string",
        ),
        (
            json!([20, 20, 20, 20, 20]),
            "5 partitions, but a Mbr table holds at most 4",
        ),
        (json!([]), "the list is empty"),
        (json!("remove"), "not true, false or a list"),
        (json!({"a": 1}), "not true, false or a list"),
    ];
    for (layout, want) in cases {
        let e = plan(layout, Mbr, GIB, 512).unwrap_err();
        assert!(e.contains(want), "{layout}: {e}");
    }
    let e = plan(&json!([[50, "8301x"], 50]), Gpt, GIB, 512).unwrap_err();
    assert!(
        e.starts_with("layout[0]: type \"8301x\" is not a known sgdisk code"),
        "{e}"
    );
    let e = plan(&json!([0.00001, 50]), Gpt, 1 << 20, 512).unwrap_err();
    assert!(e.contains("layout[0]") && e.contains("no sector"), "{e}");
    assert!(plan(&json!(vec![0.5; 129]), Gpt, GIB, 512).is_err());
    assert_eq!(
        plan(&json!(vec![0.5; 128]), Gpt, GIB, 512).unwrap().len(),
        128
    );
}
