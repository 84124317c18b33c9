//! Compile-fail and pass cases of the `#[tool]` attribute live in `tests/`.
