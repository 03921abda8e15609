//! The conformance suite: one contract (`contract.rs`), run on every backend through the public
//! tools of `Service::call`. Each contract test exists once per backend with the same body,
//! named after it (`memory_…`, `linux_…`, `wayland_…`, `cdp_…`), so a failure names the backend
//! that broke the contract. The Linux tests start an isolated desktop with a GTK app (X11; the
//! `wayland_` ones the same app on a headless sway), the CDP tests a
//! headless Chromium on a local page: they are live, so ignored by a bare `cargo test` and run
//! with `--include-ignored` (`scripts/test.sh`), where they fail, saying why, when a component
//! is missing. The memory tests always run.
//!
//! A new backend's author adds a fixture module (a `fixture::Backend` impl that starts the
//! fixture app: see `fixture.rs`) and one name in `on_every_backend!` below (with the `ignore`
//! attribute when it needs a desktop or a browser), then runs
//! `cargo test -p uidriver-service --test conformance -- --include-ignored`. A new contract test
//! is an `async fn` in `contract.rs` and one name in the `conformance!` list.
//!
//! Layout: `fixture` (the fixture, the backend trait, the runner), `contract` (the bodies),
//! `memory`, `linux`, `cdp` (one fixture per backend).

mod cdp;
mod contract;
mod fixture;
mod linux;
mod memory;

use linux as wayland;

/// One test per backend for contract test `$test`, each running the same body; a backend's
/// attributes (the live ones' `ignore`) go on each of its tests.
macro_rules! on_every_backend {
    ($test:ident) => {
        on_every_backend!($test:
            memory::Memory,
            #[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
            linux::Linux,
            #[ignore = "live: starts a private Wayland desktop (sway, AT-SPI) and its apps; scripts/test.sh runs it"]
            wayland::Wayland,
            #[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
            cdp::Cdp
        );
    };
    ($test:ident: $($(#[$attr:meta])* $module:ident::$backend:ident),+) => {
        pastey::paste! { $(
            #[test]
            $(#[$attr])*
            fn [<$module _ $test>]() {
                fixture::run::<$module::$backend, _, _>(
                    concat!(stringify!($module), "_", stringify!($test)),
                    |f| async move {
                        contract::$test(&f).await;
                        f
                    },
                );
            }
        )+ }
    };
}

/// Every contract test, on every backend.
macro_rules! conformance {
    ($($test:ident),+ $(,)?) => {
        $( on_every_backend!($test); )+
    };
}

conformance! {
    a_password_is_never_shown_or_read,
    find_roots_lists_the_fixture,
    observe_gives_a_state_with_refs,
    observe_by_title_finds_the_same_root,
    search_finds_by_name_and_role,
    inspect_shows_role_and_capabilities,
    expand_shows_the_subtree,
    press_works_and_the_successor_shows_it,
    an_unknown_ref_is_stale_ref,
    an_unknown_state_is_stale_state,
    an_older_state_is_stale_for_acting,
    a_batch_stops_at_the_first_step_that_did_not_work,
    expect_met_is_verified,
    expect_already_true_is_preexisting,
    expect_unmet_is_postcondition_failed,
    set_text_is_read_back,
    check_leaves_the_box_checked,
    wait_for_sees_text_appear,
    a_tiny_deadline_answers_timeout,
    a_wait_that_runs_out_names_its_last_state,
    bad_args_are_invalid_args_with_a_hint,
    set_files_with_a_missing_file_is_refused_unsent,
}
