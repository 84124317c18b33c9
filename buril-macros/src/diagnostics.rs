//! Collects every error of one expansion, so that the user sees all of them in one compile.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// The error collector. Dropping it without calling [`check`](Diagnostics::check) panics, so that no
/// error is ever lost.
#[derive(Default)]
pub struct Diagnostics {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Diagnostics {
    pub fn new() -> Self {
        Diagnostics {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records a parse error.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Diagnostics used after check")
            .push(error);
    }

    /// All recorded errors combined into one, or `Ok` when there were none.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("Diagnostics checked twice");
        let mut iter = errors.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Diagnostics {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
