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
            hello: "twohost/hello",
            async_modex: "twohost/async-modex",
            spawn: "twohost/spawn",
            spawn_split: "twohost/spawn-split",
            libcheck: "twohost/libcheck",
            spawn_wide: "twohost/spawn-wide",
        });
    }
}
