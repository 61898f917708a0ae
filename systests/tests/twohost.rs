//! Two hosts (network namespaces): Open MPI's mpirun and orted on rpmix.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/twohost-tests.sh
    mod twohost {
        use super::*;
        driver_cases!("twohost-tests.sh", "mpi", secs(300), [], {
            twohost_hello: "twohost/hello",
            twohost_async_modex: "twohost/async-modex",
            twohost_spawn: "twohost/spawn",
            twohost_spawn_split: "twohost/spawn-split",
            twohost_libcheck: "twohost/libcheck",
            twohost_async_modex_upcalls: "twohost/async-modex-upcalls",
        });
    }
}
