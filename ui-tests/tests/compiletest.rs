#[test]
fn ui() {
    // trybuild builds the cases in a project of its own, which does not inherit the
    // workspace's profile; without debug info its 60 binaries need a tenth of the disk.
    if std::env::var_os("CARGO_PROFILE_DEV_DEBUG").is_none() {
        // SAFETY: set before trybuild starts; this test binary runs no other thread that
        // reads the environment.
        unsafe { std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "0") };
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
