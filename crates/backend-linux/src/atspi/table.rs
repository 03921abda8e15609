//! `org.a11y.atspi.Table` (per object): a two-dimensional container's shape and its cells by
//! row and column.
//!
//! Tables that manage their descendants (LibreOffice Calc: 1,048,576 × 16,384 cells, GTK 3 tree
//! views) make a cell's accessible on demand: asking by (row, column) reaches any cell without
//! listing its siblings. Calc answers `GetIndexAt`/`GetRowAtIndex` with row × columns + column,
//! which passes `i32::MAX` below row 131,072; the cell's row and column are then unknown, not
//! guessed.

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{Obj, WireRef, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Table";

async fn count(c: &Caller, o: &Obj, prop: &str) -> Result<i32, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, prop))
        .await?;
    i32::try_from(v).map_err(|e| LinuxError::Dbus(e.into()))
}

/// Rows and columns (`NRows`, `NColumns`), read together.
pub(crate) async fn shape(c: &Caller, o: &Obj) -> Result<(i32, i32), LinuxError> {
    let (rows, cols) = tokio::join!(count(c, o, "NRows"), count(c, o, "NColumns"));
    Ok((rows?, cols?))
}

/// The cell at (`row`, `col`), counted from 0.
pub(crate) async fn cell_at(
    c: &Caller,
    o: &Obj,
    row: i32,
    col: i32,
) -> Result<Option<Obj>, LinuxError> {
    let r: WireRef = c
        .call(&o.bus, &o.path, IFACE, "GetAccessibleAt", &(row, col))
        .await?;
    let r = Obj::from(r);
    Ok((!r.is_null()).then_some(r))
}

/// The row and column of the child at `index` (`None` when the table cannot say).
pub(crate) async fn position_of(
    c: &Caller,
    o: &Obj,
    index: i32,
) -> Result<Option<(i32, i32)>, LinuxError> {
    let arg = (index,);
    let (row, col) = tokio::join!(
        c.call::<_, i32>(&o.bus, &o.path, IFACE, "GetRowAtIndex", &arg),
        c.call::<_, i32>(&o.bus, &o.path, IFACE, "GetColumnAtIndex", &arg),
    );
    let (row, col) = (row?, col?);
    Ok((row >= 0 && col >= 0).then_some((row, col)))
}

/// The header of column `col` (`None`: the table has none; Calc has none, GTK 3 tree views
/// have their column buttons).
pub(crate) async fn column_header(
    c: &Caller,
    o: &Obj,
    col: i32,
) -> Result<Option<Obj>, LinuxError> {
    let r: WireRef = c
        .call(&o.bus, &o.path, IFACE, "GetColumnHeader", &(col,))
        .await?;
    let r = Obj::from(r);
    Ok((!r.is_null()).then_some(r))
}
