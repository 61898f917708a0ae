//! The set-up from nothing (a fresh Debian 12 root: the README's two
//! commands and every installer) and the Debian packages (installed beside
//! OpenPMIx, the module, the system switch on and off, purge). Each is a
//! scenario whose steps need the ones before; their steps are printed.

use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one scenario each.
mod sh {
    use super::*;

    /// tools/fresh-root-tests.sh: clean clone, make demo, the installers,
    /// twice (nothing installed the second time), nothing left.
    #[test]
    fn fresh_machine_setup() {
        driver_scenario("fresh-root-tests.sh", "fresh-root", secs(1800));
    }

    /// tools/package-tests.sh: make deb, install, module load, system switch, purge.
    #[test]
    fn package_deploy() {
        driver_scenario("package-tests.sh", "package", secs(1800));
    }
}
