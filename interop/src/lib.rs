//! The interop tier of buril's tests lives in `tests/`: see this crate's manifest. The library
//! is empty.
