//! The set-up from nothing (a fresh Debian 12 root) and the Debian packages.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Steps of tools/run-tests.sh not yet written as tests of their own.
mod step {
    use super::*;
    #[test]
    fn fresh_machine_setup() {
        legacy_step("fresh-machine-setup", secs(1800));
    }
    #[test]
    fn package_deploy() {
        legacy_step("package-deploy", secs(1800));
    }
}
