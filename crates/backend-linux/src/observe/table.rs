//! Tables that manage their descendants, read through the Table interface over their visible
//! window of rows × columns.
//!
//! Such a table numbers its cells row by row, so reading children by index from the first
//! visible one gives one row's visible cells and then thousands of offscreen ones (Calc's sheet
//! has 2^31 children: the look showed 15 cells of one row). Asking the corner cells where they
//! are gives the window; asking each (row, column) in it gives exactly the cells on screen.

use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};

use super::{describe_cached, Described, Kids, Known};
use crate::atspi::connection::Caller;
use crate::atspi::{accessible, component, state, table, Obj};
use crate::error::LinuxError;

/// Cells asked for at once (the app answers in order; more in flight only queue there).
const IN_FLIGHT: usize = 64;

/// What reading a table gave.
pub(super) struct Cells {
    pub kids: Kids,
    /// Names the window, for the look's notes.
    pub note: String,
    /// The cell sought by its address, when it lies off screen (its details are read anyway).
    pub sought: Option<Obj>,
}

/// The visible part of a table: rows and columns counted from 0, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    pub rows: (i32, i32),
    pub cols: (i32, i32),
    pub n_rows: i32,
    pub n_cols: i32,
}

impl Window {
    fn contains(&self, row: i32, col: i32) -> bool {
        (self.rows.0..=self.rows.1).contains(&row) && (self.cols.0..=self.cols.1).contains(&col)
    }

    /// The cells read: the whole window, or its first rows when it holds more than `max`
    /// (columns kept whole up to `max`, so a row reads across).
    fn read_plan(&self, max: usize) -> (Vec<(i32, i32)>, bool) {
        let width = (self.cols.1 - self.cols.0 + 1).max(0) as usize;
        let height = (self.rows.1 - self.rows.0 + 1).max(0) as usize;
        let width_read = width.min(max.max(1));
        let height_read = height.min((max / width_read.max(1)).max(1));
        let cut = width_read < width || height_read < height;
        let cells = (0..height_read as i32)
            .flat_map(|r| (0..width_read as i32).map(move |c| (r, c)))
            .map(|(r, c)| (self.rows.0 + r, self.cols.0 + c))
            .collect();
        (cells, cut)
    }

    /// How the window is described to the model (rows and columns counted from 1).
    /// The note on the table: its window, and how the other cells are reached (by address
    /// when the table names its cells so, else only by scrolling them into view).
    fn describe(&self, name: &str, read: usize, by_address: bool) -> String {
        let others = if by_address {
            "search_ui finds any other cell by address (\"C200\")"
        } else {
            "scroll the table to bring the others on screen"
        };
        format!(
            "table {name:?}: rows {}–{} of {}, columns {}–{} of {} on screen ({read} read); \
             {others}",
            self.rows.0 + 1,
            self.rows.1 + 1,
            self.n_rows,
            self.cols.0 + 1,
            self.cols.1 + 1,
            self.n_cols
        )
    }
}

/// The showing cells of `obj`, a table managing its descendants, and a note naming the
/// window; `None` when the table cannot say where its visible cells are (then it is read by
/// child index, as other managed containers are). `seek`: text looked for; when it is a cell
/// address in a table that names its cells by address (its top-left cell proves it), that
/// cell is read too, on screen or not.
pub(super) async fn visible_cells(
    c: &Caller,
    obj: &Obj,
    name: &str,
    max_children: usize,
    seek: Option<&str>,
    known: &Known<'_>,
) -> Option<Result<Cells, LinuxError>> {
    let window = match visible_window(c, obj, known).await {
        Ok(Some(w)) => w,
        Ok(None) => return None,
        Err(e) if e.is_app_gone() || e.is_unresponsive() => return Some(Err(e)),
        Err(_) => return None,
    };
    let (cells, cut) = window.read_plan(max_children);
    let columns: Vec<i32> = {
        let mut cols: Vec<i32> = cells.iter().map(|&(_, col)| col).collect();
        cols.sort_unstable();
        cols.dedup();
        cols
    };
    // Column headers first (a GTK 3 tree view's column buttons), then the cells row by row.
    let headers = join_all(columns.into_iter().map(|col| async move {
        match table::column_header(c, obj, col).await {
            Ok(Some(o)) => describe_cached(c, o, known).await.map(Some),
            Ok(None) => Ok(None),
            // A table without headers may refuse the call: no headers.
            Err(e) if !e.is_app_gone() && !e.is_unresponsive() => Ok(None),
            Err(e) => Err(e),
        }
    }))
    .await;
    let cells: Vec<Result<Option<Described>, LinuxError>> = stream::iter(cells)
        .map(|(r, col)| cell(c, obj, r, col, known))
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let described = headers.into_iter().chain(cells);
    let mut kids = Vec::new();
    for d in described {
        match d {
            Ok(Some(d)) if d.states.has(state::SHOWING) => kids.push(d),
            Ok(_) => {}
            Err(e) if e.is_gone() && !e.is_app_gone() => {}
            Err(e) => return Some(Err(e)),
        }
    }
    let named_by_address = kids
        .iter()
        .any(|d| d.name == address(window.rows.0, window.cols.0));
    let mut note = window.describe(name, kids.len(), named_by_address);
    let sought = seek
        .and_then(parse_address)
        .filter(|&(r, col)| named_by_address && r < window.n_rows && col < window.n_cols)
        .filter(|&(r, col)| !window.contains(r, col));
    let mut sought_obj = None;
    if let Some((r, col)) = sought {
        match table::cell_at(c, obj, r, col).await {
            Ok(Some(o)) => match describe_cached(c, o, known).await {
                Ok(d) => {
                    note.push_str(&format!("; {} read by its address", d.name));
                    sought_obj = Some(d.obj.clone());
                    kids.push(d);
                }
                Err(e) if e.is_app_gone() || e.is_unresponsive() => return Some(Err(e)),
                Err(_) => {}
            },
            Ok(None) => {}
            Err(e) if e.is_app_gone() || e.is_unresponsive() => return Some(Err(e)),
            Err(_) => {}
        }
    }
    // More cells than a u32 counts (a sheet has 2^34) are u32::MAX: "uncounted", not a number.
    let total = i64::from(window.n_rows) * i64::from(window.n_cols);
    let skipped = u32::try_from((total - kids.len() as i64).max(0)).unwrap_or(u32::MAX);
    // Cells a search can reach by address are `offscreen`; others come only into view
    // (`scroll`: no call reads them, so a search does not try).
    let reason = match (cut, named_by_address) {
        (true, _) => "cap",
        (false, true) => "offscreen",
        (false, false) => "scroll",
    };
    let skipped = (skipped > 0).then_some((skipped, reason));
    Some(Ok(Cells {
        kids: Kids { kids, skipped },
        note,
        sought: sought_obj,
    }))
}

/// A spreadsheet address ("A1", "C200", "AB12"; case-insensitive) as (row, column) from 0.
fn parse_address(s: &str) -> Option<(i32, i32)> {
    let s = s.trim();
    let letters = s.chars().take_while(|c| c.is_ascii_alphabetic()).count();
    let (col, row) = s.split_at(letters);
    if letters == 0 || letters > 3 || row.is_empty() || !row.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let col = col.bytes().try_fold(0i32, |n, b| {
        Some(n * 26 + i32::from(b.to_ascii_uppercase() - b'A' + 1))
    })?;
    let row: i32 = row.parse().ok()?;
    (row >= 1).then_some((row - 1, col - 1))
}

/// The address of (row, column) counted from 0: (199, 2) is "C200".
fn address(row: i32, col: i32) -> String {
    let mut letters = Vec::new();
    let mut n = col + 1;
    while n > 0 {
        let r = (n - 1) % 26;
        letters.push(b'A' + r as u8);
        n = (n - 1) / 26;
    }
    letters.reverse();
    format!("{}{}", String::from_utf8_lossy(&letters), row + 1)
}

/// The cell at (`row`, `col`), described: the object an earlier look got, while it still
/// answers with the name it had (a toolkit that makes a new accessible per `GetAccessibleAt`
/// keeps each one, so asking again every look grows the app), else asked for anew.
async fn cell(
    c: &Caller,
    table_obj: &Obj,
    row: i32,
    col: i32,
    known: &Known<'_>,
) -> Result<Option<Described>, LinuxError> {
    if let Some((o, name)) = known.memo.cell(table_obj, row, col) {
        match describe_cached(c, o, known).await {
            Ok(d) if d.name == name && !d.states.has(state::DEFUNCT) => return Ok(Some(d)),
            Err(e) if e.is_app_gone() || e.is_unresponsive() => return Err(e),
            _ => {}
        }
    }
    let Some(o) = table::cell_at(c, table_obj, row, col).await? else {
        return Ok(None);
    };
    let d = describe_cached(c, o, known).await?;
    known
        .memo
        .remember_cell(table_obj, row, col, d.obj.clone(), d.name.clone());
    Ok(Some(d))
}

/// The rows and columns on screen, from the cells at the table's top-left and bottom-right
/// corners (a little inside, moving inwards past headers and borders that are no cells).
async fn visible_window(
    c: &Caller,
    obj: &Obj,
    known: &Known<'_>,
) -> Result<Option<Window>, LinuxError> {
    let ((n_rows, n_cols), (x, y, w, h)) = tokio::try_join!(
        table::shape(c, obj),
        component::extents(c, obj, component::COORD_SCREEN)
    )?;
    if n_rows <= 0 || n_cols <= 0 || w <= 4 || h <= 4 {
        return Ok(None);
    }
    let insets = [2, h.min(w) / 16, h.min(w) / 8];
    let mut top_left = None;
    for d in insets {
        if let Some(p) = cell_position(c, obj, x + d.max(2), y + d.max(2)).await? {
            top_left = Some(p);
            break;
        }
    }
    let mut bottom_right = None;
    for d in insets {
        let (px, py) = (x + w - d.max(2) - 1, y + h - d.max(2) - 1);
        if let Some(p) = cell_position(c, obj, px, py).await? {
            bottom_right = Some(p);
            break;
        }
    }
    let (Some(a), Some(b)) = (top_left, bottom_right) else {
        return Ok(None);
    };
    let Some(mut w) = window_of(a, b, n_rows, n_cols) else {
        return Ok(None);
    };
    // The corners were probed a little inside (past a header row): a row cut by the edge
    // above or below may still show. The table's own showing state decides.
    let (above, below) = tokio::join!(
        showing_cell(c, obj, w.rows.0 - 1, w.cols.0, known),
        showing_cell(c, obj, w.rows.1 + 1, w.cols.0, known)
    );
    if above? {
        w.rows.0 -= 1;
    }
    if below? {
        w.rows.1 += 1;
    }
    Ok(Some(w))
}

/// Whether the cell at (row, col) exists and shows.
async fn showing_cell(
    c: &Caller,
    obj: &Obj,
    row: i32,
    col: i32,
    known: &Known<'_>,
) -> Result<bool, LinuxError> {
    if row < 0 {
        return Ok(false);
    }
    match cell(c, obj, row, col, known).await {
        Ok(d) => Ok(d.is_some_and(|d| d.states.has(state::SHOWING))),
        Err(e) if e.is_app_gone() || e.is_unresponsive() => Err(e),
        Err(_) => Ok(false),
    }
}

fn window_of(a: (i32, i32), b: (i32, i32), n_rows: i32, n_cols: i32) -> Option<Window> {
    let ok = |(r, col): (i32, i32)| r < n_rows && col < n_cols;
    (ok(a) && ok(b) && a.0 <= b.0 && a.1 <= b.1).then_some(Window {
        rows: (a.0, b.0),
        cols: (a.1, b.1),
        n_rows,
        n_cols,
    })
}

/// The (row, column) of the cell at a screen point, if a cell is there.
async fn cell_position(
    c: &Caller,
    obj: &Obj,
    x: i32,
    y: i32,
) -> Result<Option<(i32, i32)>, LinuxError> {
    let Some(hit) = component::accessible_at_point(c, obj, x, y, component::COORD_SCREEN).await?
    else {
        return Ok(None);
    };
    if hit == *obj {
        return Ok(None);
    }
    let index = accessible::index_in_parent(c, &hit).await?;
    if index < 0 {
        return Ok(None);
    }
    table::position_of(c, obj, index).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calc(rows: (i32, i32), cols: (i32, i32)) -> Window {
        Window {
            rows,
            cols,
            n_rows: 1_048_576,
            n_cols: 16_384,
        }
    }

    #[test]
    fn the_window_is_read_whole_when_it_fits() {
        let w = calc((0, 30), (0, 14));
        let (cells, cut) = w.read_plan(500);
        assert_eq!(cells.len(), 31 * 15);
        assert!(!cut);
        assert_eq!(cells[0], (0, 0));
        assert_eq!(cells[15], (1, 0), "row by row");
        assert_eq!(*cells.last().unwrap(), (30, 14));
        assert!(w
            .describe("Sheet Sheet1", 465, true)
            .starts_with("table \"Sheet Sheet1\": rows 1–31 of 1048576, columns 1–15 of 16384 on screen (465 read)"));
        assert!(w
            .describe("Sheet Sheet1", 465, true)
            .ends_with("by address (\"C200\")"));
        assert!(w
            .describe("Files", 465, false)
            .ends_with("scroll the table to bring the others on screen"));
    }

    #[test]
    fn a_window_bigger_than_the_cap_keeps_whole_rows_from_the_top() {
        let w = calc((100, 199), (2, 21));
        let (cells, cut) = w.read_plan(500);
        assert!(cut);
        assert_eq!(cells.len(), 25 * 20);
        assert_eq!(cells[0], (100, 2));
        assert_eq!(*cells.last().unwrap(), (124, 21));
        let (narrow, _) = calc((0, 0), (0, 999)).read_plan(10);
        assert_eq!(narrow.len(), 10);
    }

    #[test]
    fn addresses_read_and_write_as_a_spreadsheet_names_its_cells() {
        assert_eq!(parse_address("C200"), Some((199, 2)));
        assert_eq!(parse_address("a1"), Some((0, 0)));
        assert_eq!(parse_address("AB12"), Some((11, 27)));
        for bad in ["", "12", "C", "C0", "Sum", "C2x", "ABCD1"] {
            assert_eq!(parse_address(bad), None, "{bad}");
        }
        for (r, c) in [(0, 0), (199, 2), (11, 27), (1_048_575, 16_383)] {
            assert_eq!(parse_address(&address(r, c)), Some((r, c)));
        }
        assert_eq!(address(1_048_575, 16_383), "XFD1048576");
    }

    #[test]
    fn corners_out_of_order_or_range_give_no_window() {
        assert!(window_of((5, 5), (2, 9), 10, 10).is_none());
        assert!(window_of((0, 0), (10, 3), 10, 10).is_none());
        assert_eq!(
            window_of((0, 0), (30, 14), 1_048_576, 16_384).map(|w| w.rows),
            Some((0, 30))
        );
    }
}
