//! A tool with 150 properties: the attribute's tuples of properties nest more than once
//! (twelve a tuple), and each value still reaches its parameter.
use buril_test_support::call;
use serde_json::{Value, json};

/// Lists its numbers.
#[buril::tool]
#[allow(clippy::too_many_arguments)]
fn math_list(
    /// Number 1.
    p001: u16,
    /// Number 2.
    p002: u16,
    /// Number 3.
    p003: u16,
    /// Number 4.
    p004: u16,
    /// Number 5.
    p005: u16,
    /// Number 6.
    p006: u16,
    /// Number 7.
    p007: u16,
    /// Number 8.
    p008: u16,
    /// Number 9.
    p009: u16,
    /// Number 10.
    p010: u16,
    /// Number 11.
    p011: u16,
    /// Number 12.
    p012: u16,
    /// Number 13.
    p013: u16,
    /// Number 14.
    p014: u16,
    /// Number 15.
    p015: u16,
    /// Number 16.
    p016: u16,
    /// Number 17.
    p017: u16,
    /// Number 18.
    p018: u16,
    /// Number 19.
    p019: u16,
    /// Number 20.
    p020: u16,
    /// Number 21.
    p021: u16,
    /// Number 22.
    p022: u16,
    /// Number 23.
    p023: u16,
    /// Number 24.
    p024: u16,
    /// Number 25.
    p025: u16,
    /// Number 26.
    p026: u16,
    /// Number 27.
    p027: u16,
    /// Number 28.
    p028: u16,
    /// Number 29.
    p029: u16,
    /// Number 30.
    p030: u16,
    /// Number 31.
    p031: u16,
    /// Number 32.
    p032: u16,
    /// Number 33.
    p033: u16,
    /// Number 34.
    p034: u16,
    /// Number 35.
    p035: u16,
    /// Number 36.
    p036: u16,
    /// Number 37.
    p037: u16,
    /// Number 38.
    p038: u16,
    /// Number 39.
    p039: u16,
    /// Number 40.
    p040: u16,
    /// Number 41.
    p041: u16,
    /// Number 42.
    p042: u16,
    /// Number 43.
    p043: u16,
    /// Number 44.
    p044: u16,
    /// Number 45.
    p045: u16,
    /// Number 46.
    p046: u16,
    /// Number 47.
    p047: u16,
    /// Number 48.
    p048: u16,
    /// Number 49.
    p049: u16,
    /// Number 50.
    p050: u16,
    /// Number 51.
    p051: u16,
    /// Number 52.
    p052: u16,
    /// Number 53.
    p053: u16,
    /// Number 54.
    p054: u16,
    /// Number 55.
    p055: u16,
    /// Number 56.
    p056: u16,
    /// Number 57.
    p057: u16,
    /// Number 58.
    p058: u16,
    /// Number 59.
    p059: u16,
    /// Number 60.
    p060: u16,
    /// Number 61.
    p061: u16,
    /// Number 62.
    p062: u16,
    /// Number 63.
    p063: u16,
    /// Number 64.
    p064: u16,
    /// Number 65.
    p065: u16,
    /// Number 66.
    p066: u16,
    /// Number 67.
    p067: u16,
    /// Number 68.
    p068: u16,
    /// Number 69.
    p069: u16,
    /// Number 70.
    p070: u16,
    /// Number 71.
    p071: u16,
    /// Number 72.
    p072: u16,
    /// Number 73.
    p073: u16,
    /// Number 74.
    p074: u16,
    /// Number 75.
    p075: u16,
    /// Number 76.
    p076: u16,
    /// Number 77.
    p077: u16,
    /// Number 78.
    p078: u16,
    /// Number 79.
    p079: u16,
    /// Number 80.
    p080: u16,
    /// Number 81.
    p081: u16,
    /// Number 82.
    p082: u16,
    /// Number 83.
    p083: u16,
    /// Number 84.
    p084: u16,
    /// Number 85.
    p085: u16,
    /// Number 86.
    p086: u16,
    /// Number 87.
    p087: u16,
    /// Number 88.
    p088: u16,
    /// Number 89.
    p089: u16,
    /// Number 90.
    p090: u16,
    /// Number 91.
    p091: u16,
    /// Number 92.
    p092: u16,
    /// Number 93.
    p093: u16,
    /// Number 94.
    p094: u16,
    /// Number 95.
    p095: u16,
    /// Number 96.
    p096: u16,
    /// Number 97.
    p097: u16,
    /// Number 98.
    p098: u16,
    /// Number 99.
    p099: u16,
    /// Number 100.
    p100: u16,
    /// Number 101.
    p101: u16,
    /// Number 102.
    p102: u16,
    /// Number 103.
    p103: u16,
    /// Number 104.
    p104: u16,
    /// Number 105.
    p105: u16,
    /// Number 106.
    p106: u16,
    /// Number 107.
    p107: u16,
    /// Number 108.
    p108: u16,
    /// Number 109.
    p109: u16,
    /// Number 110.
    p110: u16,
    /// Number 111.
    p111: u16,
    /// Number 112.
    p112: u16,
    /// Number 113.
    p113: u16,
    /// Number 114.
    p114: u16,
    /// Number 115.
    p115: u16,
    /// Number 116.
    p116: u16,
    /// Number 117.
    p117: u16,
    /// Number 118.
    p118: u16,
    /// Number 119.
    p119: u16,
    /// Number 120.
    p120: u16,
    /// Number 121.
    p121: u16,
    /// Number 122.
    p122: u16,
    /// Number 123.
    p123: u16,
    /// Number 124.
    p124: u16,
    /// Number 125.
    p125: u16,
    /// Number 126.
    p126: u16,
    /// Number 127.
    p127: u16,
    /// Number 128.
    p128: u16,
    /// Number 129.
    p129: u16,
    /// Number 130.
    p130: u16,
    /// Number 131.
    p131: u16,
    /// Number 132.
    p132: u16,
    /// Number 133.
    p133: u16,
    /// Number 134.
    p134: u16,
    /// Number 135.
    p135: u16,
    /// Number 136.
    p136: u16,
    /// Number 137.
    p137: u16,
    /// Number 138.
    p138: u16,
    /// Number 139.
    p139: u16,
    /// Number 140.
    p140: u16,
    /// Number 141.
    p141: u16,
    /// Number 142.
    p142: u16,
    /// Number 143.
    p143: u16,
    /// Number 144.
    p144: u16,
    /// Number 145.
    p145: u16,
    /// Number 146.
    p146: u16,
    /// Number 147.
    p147: u16,
    /// Number 148.
    p148: u16,
    /// Number 149.
    p149: u16,
    /// Number 150, if given.
    p150: Option<u16>,
) -> Vec<u16> {
    let mut all = vec![
        p001, p002, p003, p004, p005, p006, p007, p008, p009, p010, p011, p012, p013, p014, p015,
        p016, p017, p018, p019, p020, p021, p022, p023, p024, p025, p026, p027, p028, p029, p030,
        p031, p032, p033, p034, p035, p036, p037, p038, p039, p040, p041, p042, p043, p044, p045,
        p046, p047, p048, p049, p050, p051, p052, p053, p054, p055, p056, p057, p058, p059, p060,
        p061, p062, p063, p064, p065, p066, p067, p068, p069, p070, p071, p072, p073, p074, p075,
        p076, p077, p078, p079, p080, p081, p082, p083, p084, p085, p086, p087, p088, p089, p090,
        p091, p092, p093, p094, p095, p096, p097, p098, p099, p100, p101, p102, p103, p104, p105,
        p106, p107, p108, p109, p110, p111, p112, p113, p114, p115, p116, p117, p118, p119, p120,
        p121, p122, p123, p124, p125, p126, p127, p128, p129, p130, p131, p132, p133, p134, p135,
        p136, p137, p138, p139, p140, p141, p142, p143, p144, p145, p146, p147, p148, p149,
    ];
    all.extend(p150);
    all
}

fn main() {
    let mut input = serde_json::Map::new();
    for i in 1..=150 {
        input.insert(format!("p{i:03}"), json!(i));
    }
    let envelope = call("math_list", Value::Object(input.clone()));
    let expected: Vec<u16> = (1..=150).collect();
    assert_eq!(envelope["data"]["result"], json!(expected), "{envelope}");
    input.remove("p150");
    let envelope = call("math_list", Value::Object(input));
    assert_eq!(
        envelope["data"]["result"],
        json!(expected[..149]),
        "{envelope}"
    );
    let tool = buril::registry().get("math_list").unwrap();
    let schema = tool.input_schema();
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    let expected: Vec<String> = (1..=150).map(|i| format!("p{i:03}")).collect();
    assert_eq!(names, expected.iter().collect::<Vec<_>>());
    assert_eq!(schema["required"].as_array().unwrap().len(), 149);
}
