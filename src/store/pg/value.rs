//! [`Value`] on the PostgreSQL wire: a parameter is encoded as the type the server expects
//! for it (the statement's inferred parameter type), a column decoded from its type. So the
//! store's one SQL text serves both engines: an integer parameter goes out as BIGINT, INTEGER,
//! SMALLINT or BOOLEAN, as the column wants, and a NULL fits any type.

use std::error::Error;

use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};

use crate::store::sql::Value;

type BoxError = Box<dyn Error + Sync + Send>;

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        match self {
            Self::Null => Ok(IsNull::Yes),
            Self::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => match i {
                    0 => false.to_sql(ty, out),
                    1 => true.to_sql(ty, out),
                    _ => Err(format!("{i} is not a boolean (0 or 1)").into()),
                },
                // Untyped places (`SELECT ?1`) are inferred as text.
                Type::TEXT | Type::VARCHAR => i.to_string().to_sql(ty, out),
                ref other => Err(format!("an integer cannot be sent as {other}").into()),
            },
            Self::Text(s) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    s.as_str().to_sql(ty, out)
                }
                ref other => Err(format!("text cannot be sent as {other}").into()),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        // Checked per value in `to_sql`, which names the mismatch.
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        Ok(match *ty {
            Type::INT8 => Self::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Self::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Self::Int(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Self::Int(bool::from_sql(ty, raw)?.into()),
            _ => Self::Text(<&str>::from_sql(ty, raw)?.to_owned()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(Self::Null)
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT8
                | Type::INT4
                | Type::INT2
                | Type::BOOL
                | Type::TEXT
                | Type::VARCHAR
                | Type::BPCHAR
                | Type::NAME
        )
    }
}
