//! Values between Python and the protocol: statement arguments out, typed cells back.
//!
//! Arguments travel as typed X-protocol scalars, never spliced into the statement text: `int`
//! (signed, or unsigned above `i64::MAX`), `float`, `bool`, `str`, `bytes`-like, `None`. Types the
//! protocol has no scalar for go as their MySQL literal text in a string scalar, which MySQL
//! converts on assignment and comparison exactly as it converts a quoted literal: `Decimal`
//! (exact digits), `datetime.date`, `datetime.datetime`, `datetime.time` and `timedelta` (as
//! TIME). An aware `datetime` keeps its wall-clock time; MySQL's DATETIME has no zone.
//!
//! Cells come back by their X-protocol type: SINT and UINT as `int`, DOUBLE and FLOAT as
//! `float`, DECIMAL as `Decimal` with its scale, BYTES as `str` (or `bytes` for a binary
//! collation; JSON arrives as text), DATE as `date`, DATETIME and TIMESTAMP as `datetime`, TIME as
//! `timedelta` (MySQL's TIME is a duration of up to ±838 hours), ENUM as `str`, SET as a
//! comma-separated `str` (as the text protocol gives it), BIT as `int`. A zero or partial date
//! (`0000-00-00`), which `datetime` cannot hold, comes back as its text.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateAccess, PyDateTime, PyDelta, PyDeltaAccess,
    PyFloat, PyInt, PyMemoryView, PyString, PyTime, PyTimeAccess, PyTuple, PyType,
};
use xrpc_client::{Column, Param, Value};

static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// One statement argument.
pub(crate) fn param(obj: &Bound<'_, PyAny>) -> PyResult<Param> {
    if obj.is_none() {
        return Ok(Param::Null);
    }
    // bool before int: Python's bool is an int.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Param::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(v) = obj.extract::<i64>() {
            return Ok(Param::Int(v));
        }
        return obj.extract::<u64>().map(Param::UInt);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Param::Double(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Param::Str(s.to_str()?.to_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Param::Bytes(b.as_bytes().to_vec().into()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Param::Bytes(b.to_vec().into()));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        let bytes = obj.call_method0("tobytes")?;
        return Ok(Param::Bytes(
            bytes.cast::<PyBytes>()?.as_bytes().to_vec().into(),
        ));
    }
    // datetime before date: a datetime is a date.
    if let Ok(dt) = obj.cast::<PyDateTime>() {
        let mut text = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            dt.get_year(),
            dt.get_month(),
            dt.get_day(),
            dt.get_hour(),
            dt.get_minute(),
            dt.get_second()
        );
        push_micros(&mut text, dt.get_microsecond());
        return Ok(Param::Str(text));
    }
    if let Ok(d) = obj.cast::<PyDate>() {
        return Ok(Param::Str(format!(
            "{:04}-{:02}-{:02}",
            d.get_year(),
            d.get_month(),
            d.get_day()
        )));
    }
    if let Ok(t) = obj.cast::<PyTime>() {
        let mut text = format!(
            "{:02}:{:02}:{:02}",
            t.get_hour(),
            t.get_minute(),
            t.get_second()
        );
        push_micros(&mut text, t.get_microsecond());
        return Ok(Param::Str(text));
    }
    if let Ok(delta) = obj.cast::<PyDelta>() {
        return Ok(Param::Str(time_text(
            i64::from(delta.get_days()),
            i64::from(delta.get_seconds()),
            i64::from(delta.get_microseconds()),
        )));
    }
    let decimal = DECIMAL.import(obj.py(), "decimal", "Decimal")?;
    if obj.is_instance(decimal)? {
        // str() of a Decimal is exact; NaN and infinities have no MySQL form.
        if !obj.call_method0("is_finite")?.is_truthy()? {
            return Err(PyTypeError::new_err(format!(
                "{} has no MySQL DECIMAL form",
                obj.str()?
            )));
        }
        let text = obj.call_method1("__format__", ("f",))?;
        return Ok(Param::Str(text.extract()?));
    }
    Err(PyTypeError::new_err(format!(
        "cannot send a {} as a statement argument",
        obj.get_type().name()?
    )))
}

/// Every argument of a sequence (a tuple or list).
pub(crate) fn params(args: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Param>> {
    let Some(args) = args else {
        return Ok(Vec::new());
    };
    if args.is_none() {
        return Ok(Vec::new());
    }
    if args.is_instance_of::<PyString>() || args.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "statement arguments must be a sequence (tuple or list), not a string",
        ));
    }
    args.try_iter()?.map(|item| param(&item?)).collect()
}

fn push_micros(text: &mut String, micros: u32) {
    if micros != 0 {
        text.push_str(&format!(".{micros:06}"));
    }
}

/// A `timedelta` as MySQL TIME text: `[-]H:MM:SS[.ffffff]`, hours beyond 24 included.
fn time_text(days: i64, seconds: i64, micros: i64) -> String {
    let total = (days * 86_400 + seconds) * 1_000_000 + micros;
    let sign = if total < 0 { "-" } else { "" };
    let total = total.unsigned_abs();
    let (secs, micros) = (total / 1_000_000, (total % 1_000_000) as u32);
    let mut text = format!(
        "{sign}{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    push_micros(&mut text, micros);
    text
}

/// One cell of `column`.
pub(crate) fn cell<'py>(
    py: Python<'py>,
    column: &Column,
    value: &Value,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Sint(v) => v.into_pyobject(py)?.into_any(),
        Value::Uint(v) | Value::Bit(v) => v.into_pyobject(py)?.into_any(),
        Value::Double(v) => v.into_pyobject(py)?.into_any(),
        // The shortest text of the single-precision value, as MySQL prints a FLOAT: 1.1, not
        // 1.100000023841858.
        Value::Float(v) => v
            .to_string()
            .parse::<f64>()
            .unwrap_or(f64::from(*v))
            .into_pyobject(py)?
            .into_any(),
        Value::Bytes(b) => {
            if column.is_binary() {
                PyBytes::new(py, b).into_any()
            } else {
                PyString::new(py, &String::from_utf8_lossy(b)).into_any()
            }
        }
        Value::Enum(b) => PyString::new(py, &String::from_utf8_lossy(b)).into_any(),
        Value::Set(members) => {
            let text: Vec<_> = members.iter().map(|m| String::from_utf8_lossy(m)).collect();
            PyString::new(py, &text.join(",")).into_any()
        }
        Value::Decimal(d) => DECIMAL
            .import(py, "decimal", "Decimal")?
            .call1((d.to_string(),))?,
        Value::DateTime(dt) => {
            let (y, mo, d) = (dt.year(), dt.month(), dt.day());
            if mo == 0 || d == 0 || y == 0 {
                PyString::new(py, &dt.to_string()).into_any()
            } else if is_date(column) {
                PyDate::new(py, y as i32, mo as u8, d as u8)?.into_any()
            } else {
                PyDateTime::new(
                    py,
                    y as i32,
                    mo as u8,
                    d as u8,
                    dt.hour() as u8,
                    dt.minute() as u8,
                    dt.second() as u8,
                    dt.micros(),
                    None,
                )?
                .into_any()
            }
        }
        Value::Time(t) => {
            let secs =
                i64::from(t.hours()) * 3600 + i64::from(t.minutes()) * 60 + i64::from(t.seconds());
            let micros = secs * 1_000_000 + i64::from(t.micros());
            let micros = if t.is_negative() { -micros } else { micros };
            let days = micros.div_euclid(86_400_000_000);
            let rest = micros.rem_euclid(86_400_000_000);
            PyDelta::new(
                py,
                days as i32,
                (rest / 1_000_000) as i32,
                (rest % 1_000_000) as i32,
                false,
            )?
            .into_any()
        }
    })
}

/// MySQL's field type of a DATE column (`MYSQL_TYPE_DATE`, `MYSQL_TYPE_NEWDATE`).
fn is_date(column: &Column) -> bool {
    matches!(column.original_type, 10 | 14)
}

/// A row as a tuple.
pub(crate) fn row<'py>(
    py: Python<'py>,
    columns: &[Column],
    values: &[Value],
) -> PyResult<Bound<'py, PyTuple>> {
    let cells = columns
        .iter()
        .zip(values)
        .map(|(c, v)| cell(py, c, v))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timedeltas_become_mysql_time_text() {
        assert_eq!(time_text(0, 3661, 0), "1:01:01");
        assert_eq!(time_text(1, 1, 5), "24:00:01.000005");
        // timedelta(seconds=-1) is days=-1, seconds=86399.
        assert_eq!(time_text(-1, 86_399, 0), "-0:00:01");
        assert_eq!(time_text(-35, 3_600, 500_000), "-838:59:59.500000");
    }
}
