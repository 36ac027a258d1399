//! PDFs written with `lopdf` for the PDF tests: a three-page survey with an
//! `Info` dictionary, and the pieces to build others.

#![allow(dead_code, unused_imports)]

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, Stream, dictionary};

pub const PAGES: [&str; 3] = [
    "Kestrel survey of the northern valley. Observers counted birds along twelve transects \
     during the spring of 2024, from March to May, at dawn and at dusk.",
    "Results. The kestrel population in the northern valley grew by 18 percent between 2022 \
     and 2024, while the number of nesting sites stayed the same.",
    "Discussion. Milder winters and more voles explain most of the growth; the southern \
     valley saw no change over the same years.",
];

/// A PDF written with `lopdf`: one page per entry of `pages` (each line a
/// text line, Helvetica), an `Info` dictionary, streams compressed.
pub fn lopdf_pdf(pages: &[&str]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let kids: Vec<Object> = pages
        .iter()
        .map(|text| {
            let content = doc.add_object(Stream::new(dictionary! {}, page_content(text)));
            doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => content,
            })
            .into()
        })
        .collect();
    finish(&mut doc, pages_id, kids, resources.into())
}

/// Text drawn line by line, about 60 characters a line.
pub fn page_content(text: &str) -> Vec<u8> {
    let mut ops = vec![
        Operation::new("BT", vec![]),
        Operation::new("Tf", vec!["F1".into(), 11.into()]),
        Operation::new("TL", vec![14.into()]),
        Operation::new("Td", vec![60.into(), 780.into()]),
    ];
    for line in wrap(text, 60) {
        ops.push(Operation::new("Tj", vec![Object::string_literal(line)]));
        ops.push(Operation::new("T*", vec![]));
    }
    ops.push(Operation::new("ET", vec![]));
    Content { operations: ops }.encode().expect("content")
}

pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("a line");
        if !line.is_empty() && line.len() + word.len() >= width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The page tree, catalog and `Info`, then the saved bytes.
pub fn finish(
    doc: &mut Document,
    pages_id: lopdf::ObjectId,
    kids: Vec<Object>,
    res: Object,
) -> Vec<u8> {
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => res,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    let info = doc.add_object(dictionary! {
        "Title" => Object::string_literal("Kestrels of the Northern Valley"),
        "Author" => Object::string_literal("R. Falco"),
        "CreationDate" => Object::string_literal("D:20240115093000+01'00'"),
        "Producer" => Object::string_literal("ferret pdf test"),
    });
    doc.trailer.set("Root", catalog);
    doc.trailer.set("Info", info);
    doc.compress();
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save");
    bytes
}
