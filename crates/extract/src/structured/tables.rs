//! HTML tables read as records.
//!
//! Each `<table>` becomes a grid (colspan/rowspan expanded) and, where its
//! shape allows, two lists of records:
//! - **rows**: a header row (`<thead>`, an all-`<th>` first row, or a
//!   label-only first row) gives the keys, each later row is a record;
//! - **columns**: a key column (rows that start with `<th>`, or a
//!   two-column table) gives the keys, each later column is a record, named
//!   by its header cell (pricing tables with plans as columns, spec tables,
//!   infoboxes).
//!
//! The table's caption, or else the nearest heading before it, is kept as
//! context. Cell text skips styles, scripts, hidden elements and citation
//! markers (`<sup class="reference">`); a cell holding a list (or lines
//! split by `<br>`) also keeps its items.

use ego_tree::NodeRef;
use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node};
use serde_json::{Map, Value};

use super::coerce::parse_number;

const MAX_TABLES: usize = 100;
const MAX_ROWS: usize = 2000;
const MAX_COLUMNS: usize = 64;
const MAX_SPAN: usize = 50;
const MAX_CELL_CHARS: usize = 4000;

/// One cell's content.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cell {
    pub text: String,
    pub items: Vec<String>,
    pub header: bool,
}

impl Cell {
    /// The cell as a JSON value: its items when it holds a list of two or
    /// more, otherwise its text.
    fn to_value(&self) -> Value {
        if self.items.len() >= 2 {
            Value::Array(self.items.iter().cloned().map(Value::String).collect())
        } else {
            Value::String(self.text.clone())
        }
    }
}

/// A table read from the page.
pub(crate) struct Table {
    /// 1-based position among the page's tables.
    pub number: usize,
    /// Caption or nearest preceding heading.
    pub context: Option<String>,
    /// Row records, when the table has a header row.
    pub rows: Option<Vec<Value>>,
    /// Column records, when the table has a key column.
    pub columns: Option<Vec<Value>>,
}

/// Reads every table of the page (at most [`MAX_TABLES`]).
pub(crate) fn read_tables(doc: &Html) -> Vec<Table> {
    let mut out = Vec::new();
    let mut last_heading: Option<String> = None;
    for edge in doc.tree.root().traverse() {
        let Edge::Open(node) = edge else { continue };
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        let name = el.value().name();
        if matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            let t = collapse(&el.text().collect::<String>());
            if !t.is_empty() {
                last_heading = Some(t);
            }
        } else if name == "table" {
            if out.len() >= MAX_TABLES {
                break;
            }
            let grid = grid_of(node);
            if grid.rows.is_empty() {
                continue;
            }
            let context = grid.caption.clone().or_else(|| last_heading.clone());
            out.push(Table {
                number: out.len() + 1,
                context,
                rows: row_records(&grid),
                columns: column_records(&grid),
            });
        }
    }
    out
}

/// A row as written: whether it is in `<thead>`, and its cells with their
/// colspan and rowspan.
type RawRow = (bool, Vec<(Cell, usize, usize)>);

struct Grid {
    rows: Vec<Vec<Cell>>,
    /// Rows that came from `<thead>`.
    thead_rows: usize,
    caption: Option<String>,
}

/// The table's own rows (not those of nested tables), spans expanded.
fn grid_of(table: NodeRef<'_, Node>) -> Grid {
    let (raw_rows, caption) = raw_rows_of(table);
    let (rows, thead_rows) = rectangular(expand_spans(raw_rows));
    Grid {
        rows,
        thead_rows,
        caption,
    }
}

/// The table's rows as written and its caption, read by an iterative walk
/// that does not enter nested tables (at most [`MAX_ROWS`] rows).
fn raw_rows_of(table: NodeRef<'_, Node>) -> (Vec<RawRow>, Option<String>) {
    let mut raw_rows: Vec<RawRow> = Vec::new();
    let mut caption = None;
    let mut stack: Vec<(NodeRef<'_, Node>, bool)> =
        table.children().rev().map(|c| (c, false)).collect();
    while let Some((node, in_thead)) = stack.pop() {
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        match el.value().name() {
            "table" => {}
            "caption" => {
                let t = cell_of(node).text;
                if !t.is_empty() {
                    caption = Some(t);
                }
            }
            "tr" => {
                if raw_rows.len() >= MAX_ROWS {
                    break;
                }
                raw_rows.push((in_thead, row_cells(node)));
            }
            other => {
                let thead = in_thead || other == "thead";
                for c in node.children().rev() {
                    stack.push((c, thead));
                }
            }
        }
    }
    (raw_rows, caption)
}

/// The `<td>` and `<th>` cells of one row, with their colspan and rowspan.
fn row_cells(tr: NodeRef<'_, Node>) -> Vec<(Cell, usize, usize)> {
    let mut cells = Vec::new();
    for c in tr.children() {
        let Some(cel) = ElementRef::wrap(c) else {
            continue;
        };
        let tag = cel.value().name();
        if tag != "td" && tag != "th" {
            continue;
        }
        let span = |attr: &str| {
            cel.value()
                .attr(attr)
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(1)
                .clamp(1, MAX_SPAN)
        };
        let mut cell = cell_of(c);
        cell.header = tag == "th";
        cells.push((cell, span("colspan"), span("rowspan")));
    }
    cells
}

/// A grid row under construction: whether it is in `<thead>`, and its
/// cells (`None` where nothing reaches that column).
type SpanRow = (bool, Vec<Option<Cell>>);

/// Cells carried down by rowspan, per column: the cell and how many more
/// rows it covers.
type Carry = Vec<Option<(Cell, usize)>>;

/// Expands colspan and rowspan into rows of one cell per column (at most
/// [`MAX_COLUMNS`]); rows may still differ in width.
fn expand_spans(raw_rows: Vec<RawRow>) -> Vec<SpanRow> {
    let mut rows = Vec::new();
    let mut pending: Carry = Vec::new();
    for (in_thead, cells) in raw_rows {
        let mut row: Vec<Option<Cell>> = Vec::new();
        let mut col = 0;
        let mut cells = cells.into_iter();
        while col < MAX_COLUMNS {
            if let Some(cell) = take_carried(&mut pending, col) {
                row.push(Some(cell));
                col += 1;
                continue;
            }
            let Some((cell, colspan, rowspan)) = cells.next() else {
                break;
            };
            for _ in 0..colspan {
                if col >= MAX_COLUMNS {
                    break;
                }
                if pending.len() <= col {
                    pending.resize(col + 1, None);
                }
                if rowspan > 1 {
                    pending[col] = Some((cell.clone(), rowspan - 1));
                }
                row.push(Some(cell.clone()));
                col += 1;
            }
        }
        // Carried cells to the right of the last real cell.
        while col < pending.len() && col < MAX_COLUMNS {
            row.push(take_carried(&mut pending, col));
            col += 1;
        }
        rows.push((in_thead, row));
    }
    rows
}

/// The cell a rowspan carries into `col` of this row, if any, counting the
/// row off its span.
fn take_carried(pending: &mut Carry, col: usize) -> Option<Cell> {
    let (cell, left) = pending.get_mut(col)?.as_mut()?;
    let cell = cell.clone();
    *left -= 1;
    if *left == 0 {
        pending[col] = None;
    }
    Some(cell)
}

/// Pads the rows to one width and drops rows without text; returns them
/// with the number of leading `<thead>` rows among those that remain.
fn rectangular(rows: Vec<SpanRow>) -> (Vec<Vec<Cell>>, usize) {
    let width = rows.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
    // Rows without text are dropped first, so the header count below
    // indexes the rows that remain.
    let rows: Vec<(bool, Vec<Cell>)> = rows
        .into_iter()
        .map(|(in_thead, mut r)| {
            r.resize(width, None);
            (
                in_thead,
                r.into_iter()
                    .map(Option::unwrap_or_default)
                    .collect::<Vec<Cell>>(),
            )
        })
        .filter(|(_, r)| r.iter().any(|c| !c.text.is_empty()))
        .collect();
    let thead_rows = rows.iter().take_while(|(in_thead, _)| *in_thead).count();
    (rows.into_iter().map(|(_, r)| r).collect(), thead_rows)
}

/// Index of the header row, if the table has one, and whether it is marked
/// up as one (`<thead>` or `<th>`) rather than guessed from its labels.
fn header_row(grid: &Grid) -> Option<(usize, bool)> {
    if grid.thead_rows > 0 {
        return Some((grid.thead_rows - 1, true));
    }
    let first = grid.rows.first()?;
    if first.len() >= 2 && first.iter().all(|c| c.header) {
        return Some((0, true));
    }
    // A first row of labels in a table without <th>.
    let any_th = grid.rows.iter().flatten().any(|c| c.header);
    if !any_th
        && grid.rows.len() >= 2
        && first.len() >= 2
        && first
            .iter()
            .all(|c| !c.text.is_empty() && parse_number(&c.text).is_none())
    {
        return Some((0, false));
    }
    None
}

fn row_records(grid: &Grid) -> Option<Vec<Value>> {
    let (h, _) = header_row(grid)?;
    let keys: Vec<&str> = grid.rows[h].iter().map(|c| c.text.as_str()).collect();
    let mut records = Vec::new();
    for row in &grid.rows[h + 1..] {
        if row.iter().all(|c| c.header) {
            continue; // a section row
        }
        let mut obj = Map::new();
        for (k, cell) in keys.iter().zip(row) {
            if k.is_empty() || obj.contains_key(*k) {
                continue;
            }
            obj.insert((*k).to_owned(), cell.to_value());
        }
        if !obj.is_empty() {
            records.push(Value::Object(obj));
        }
    }
    (!records.is_empty()).then_some(records)
}

fn column_records(grid: &Grid) -> Option<Vec<Value>> {
    let width = grid.rows.first()?.len();
    if width < 2 {
        return None;
    }
    // A guessed header over two columns is more likely the first fact of
    // a key/value table.
    let header = match header_row(grid) {
        Some((_, false)) if width == 2 => None,
        other => other.map(|(h, _)| h),
    };
    let body_start = header.map_or(0, |h| h + 1);
    let body = &grid.rows[body_start..];
    if body.is_empty() {
        return None;
    }
    let row_headed = body.iter().filter(|r| r[0].header).count();
    let key_column = row_headed * 5 >= body.len() * 3 || width == 2;
    if !key_column {
        return None;
    }
    let corner = header.map(|h| grid.rows[h][0].text.clone());
    let mut records = Vec::new();
    for j in 1..width {
        let mut obj = Map::new();
        if let Some(h) = header {
            let name = &grid.rows[h][j];
            if !name.text.is_empty() {
                obj.insert("name".to_owned(), Value::String(name.text.clone()));
                if let Some(c) = corner.as_deref().filter(|c| !c.is_empty()) {
                    obj.insert(c.to_owned(), Value::String(name.text.clone()));
                }
            }
        }
        for row in body {
            let key = row[0].text.as_str();
            if key.is_empty() || obj.contains_key(key) {
                continue;
            }
            // A full-width row (colspan over the key) is a section, not a fact.
            if row[j].text == row[0].text {
                continue;
            }
            obj.insert(key.to_owned(), row[j].to_value());
        }
        if obj.len() > usize::from(header.is_some()) {
            records.push(Value::Object(obj));
        }
    }
    (!records.is_empty()).then_some(records)
}

/// The text of a cell and its list items.
fn cell_of(node: NodeRef<'_, Node>) -> Cell {
    let mut reader = CellReader::default();
    for edge in node.traverse() {
        match edge {
            Edge::Open(n) => reader.open(n, n != node),
            Edge::Close(n) => reader.close(n),
        }
    }
    reader.finish()
}

/// The state of one walk over a cell's subtree.
struct CellReader {
    /// Lines of text, split at `<br>` and block elements.
    lines: Vec<String>,
    /// Finished list items.
    items: Vec<String>,
    /// The outermost open `<li>`: its depth and text so far.
    item: Option<(usize, String)>,
    /// Depth of the skipped element being walked through, if any.
    skip_depth: Option<usize>,
    depth: usize,
    chars: usize,
}

impl Default for CellReader {
    fn default() -> Self {
        CellReader {
            lines: vec![String::new()],
            items: Vec::new(),
            item: None,
            skip_depth: None,
            depth: 0,
            chars: 0,
        }
    }
}

impl CellReader {
    /// Enters a node; `inner` is false for the cell element itself.
    fn open(&mut self, n: NodeRef<'_, Node>, inner: bool) {
        self.depth += 1;
        if self.skip_depth.is_some() {
            return;
        }
        match n.value() {
            Node::Element(e) => {
                let name = e.name();
                if inner && (skipped(e) || name == "table") {
                    self.skip_depth = Some(self.depth);
                    return;
                }
                if matches!(
                    name,
                    "br" | "p" | "div" | "li" | "ul" | "ol" | "dt" | "dd" | "tr"
                ) {
                    self.break_line();
                }
                if name == "li" && self.item.is_none() {
                    self.item = Some((self.depth, String::new()));
                }
            }
            Node::Text(t) if self.chars < MAX_CELL_CHARS => {
                self.chars += t.len();
                if let Some(last) = self.lines.last_mut() {
                    last.push_str(t);
                }
                if let Some((_, s)) = self.item.as_mut() {
                    s.push_str(t);
                }
            }
            _ => {}
        }
    }

    /// Leaves a node: ends a skipped element, a list item or a block.
    fn close(&mut self, n: NodeRef<'_, Node>) {
        if self.skip_depth == Some(self.depth) {
            self.skip_depth = None;
        } else if self.skip_depth.is_none()
            && let Node::Element(e) = n.value()
        {
            if e.name() == "li"
                && let Some((d, _)) = &self.item
                && *d == self.depth
            {
                let (_, s) = self.item.take().unwrap_or_default();
                let s = collapse(&s);
                if !s.is_empty() {
                    self.items.push(s);
                }
            }
            if matches!(e.name(), "p" | "div" | "li" | "dt" | "dd") {
                self.break_line();
            }
        }
        self.depth -= 1;
    }

    /// Starts a new line unless the current one is still empty.
    fn break_line(&mut self) {
        if !self.lines.last().is_some_and(String::is_empty) {
            self.lines.push(String::new());
        }
    }

    /// The cell: items joined when it holds two or more, otherwise its
    /// lines (which become the items when there are several).
    fn finish(self) -> Cell {
        let mut items = self.items;
        let lines: Vec<String> = self
            .lines
            .iter()
            .map(|l| collapse(l))
            .filter(|l| !l.is_empty())
            .collect();
        let text = if items.len() >= 2 {
            items.join(", ")
        } else {
            lines.join(" ")
        };
        if items.len() < 2 && lines.len() >= 2 {
            items = lines;
        }
        Cell {
            text,
            items,
            header: false,
        }
    }
}

/// Elements whose text is not part of a cell's value.
fn skipped(e: &scraper::node::Element) -> bool {
    let name = e.name();
    if matches!(
        name,
        "style" | "script" | "noscript" | "template" | "svg" | "button"
    ) {
        return true;
    }
    if crate::hidden::is_removed(e) || crate::hidden::aria_hidden(e) {
        return true;
    }
    name == "sup" && e.classes().any(|c| c == "reference" || c == "noprint")
        || e.classes()
            .any(|c| c == "noprint" || c == "sortkey" || c == "mw-editsection")
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
