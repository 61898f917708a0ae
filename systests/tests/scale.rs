//! Jobs of 65,536 and 1,048,576 ranks on a C host, values compared with OpenPMIx.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Steps of tools/run-tests.sh not yet written as tests of their own.
mod step {
    use super::*;
    #[test]
    fn scale_64k_1m_host_inline() {
        legacy_step("scale-64k-1m-host-inline", secs(900));
    }
}
