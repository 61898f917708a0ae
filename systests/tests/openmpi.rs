//! Open MPI 4.1 (Debian 12) and 5.0 with PRRTE and OpenPMIx 5 (the Debian 13
//! root) on rpmix.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/ompi-tests.sh
    mod ompi {
        use super::*;
        driver_cases!("ompi-tests.sh", "mpi", secs(300), [("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            mpirun_openpmix_hello: "mpirun/openpmix/hello",
            mpirun_openpmix_spawn: "mpirun/openpmix/spawn",
            mpirun_openpmix_pubsub: "mpirun/openpmix/pubsub",
            mpirun_openpmix_abort: "mpirun/openpmix/abort",
            mpirun_openpmix_nofinalize: "mpirun/openpmix/nofinalize",
            singleton_openpmix_hello: "singleton/openpmix/hello",
            twojobs_openpmix_pubsub: "twojobs/openpmix/pubsub",
            mpirun_rpmix_hello: "mpirun/rpmix/hello",
            mpirun_rpmix_spawn: "mpirun/rpmix/spawn",
            mpirun_rpmix_pubsub: "mpirun/rpmix/pubsub",
            mpirun_rpmix_abort: "mpirun/rpmix/abort",
            mpirun_rpmix_nofinalize: "mpirun/rpmix/nofinalize",
            singleton_rpmix_hello: "singleton/rpmix/hello",
            twojobs_rpmix_pubsub: "twojobs/rpmix/pubsub",
            mpirun_mixed_hello: "mpirun/mixed/hello",
            mpirun_mixed_spawn: "mpirun/mixed/spawn",
            mpirun_mixed_pubsub: "mpirun/mixed/pubsub",
            mpirun_mixed_abort: "mpirun/mixed/abort",
            mpirun_mixed_nofinalize: "mpirun/mixed/nofinalize",
            mpirun_rpmix_hello_x20: "mpirun/rpmix/hello-x20",
            pmixrun_hello: "pmixrun/hello",
            pmixrun_hello_bound: "pmixrun/hello-bound",
            pmixrun_spawn: "pmixrun/spawn",
            pmixrun_pubsub: "pmixrun/pubsub",
            pmixrun_abort: "pmixrun/abort",
            pmixrun_nofinalize: "pmixrun/nofinalize",
        });
    }
    /// tools/newer-tests.sh
    mod newer {
        use super::*;
        driver_cases!("newer-tests.sh", "newer", secs(600), [], {
            helpers_vs_openpmix5: "helpers-vs-openpmix5",
            exports_vs_openpmix5: "exports-vs-openpmix5",
            helpers_client: "helpers-client",
            ompi5_hello: "ompi5/hello",
            ompi5_pubsub: "ompi5/pubsub",
            ompi5_abort: "ompi5/abort",
            ompi5_spawn: "ompi5/spawn",
            opx5_hello: "opx5/hello",
            opx5_pubsub: "opx5/pubsub",
            opx5_spawn: "opx5/spawn",
            py5_bindings: "py5/bindings",
            ompi5_psets: "ompi5/psets",
            opx5_psets: "opx5/psets",
            opx5_tools: "opx5/tools",
            prte_hello: "prte/hello",
            prte_pubsub: "prte/pubsub",
            prte_abort: "prte/abort",
            prte_spawn: "prte/spawn",
            prte_group: "prte/group",
            prte_psets: "prte/psets",
            prte_pmixctl: "prte/pmixctl",
            prte_pmixctl_stdin: "prte/pmixctl-stdin",
        });
    }
}
