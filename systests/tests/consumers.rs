//! Programs of the field with their own tests: mpi4py's suite, mpi4py.futures,
//! rixa, Intel MPI's IMB, OpenPMIx's Python bindings.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/py-tests.sh
    mod python {
        use super::*;
        driver_cases!("py-tests.sh", "py", secs(300), [("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            mpirun_openpmix: "mpirun/openpmix",
            pmixrun_rpmix: "pmixrun/rpmix",
            mpirun_rpmix: "mpirun/rpmix",
            compare_pmixrun_rpmix: "compare/pmixrun/rpmix",
            compare_mpirun_rpmix: "compare/mpirun/rpmix",
        });
    }
    /// tools/consumers-tests.sh
    mod suites {
        use super::*;
        driver_cases!("consumers-tests.sh", "consumers", secs(900), [], {
            mpi4py_pmixrun_1: "mpi4py/pmixrun/1",
            mpi4py_pmixrun_2: "mpi4py/pmixrun/2",
            mpi4py_pmixrun_3: "mpi4py/pmixrun/3",
            mpi4py_mpirun_1: "mpi4py/mpirun/1",
            mpi4py_mpirun_2: "mpi4py/mpirun/2",
            mpi4py_mpirun_3: "mpi4py/mpirun/3",
            futures_pmixrun_spawn: "futures/pmixrun/spawn",
            futures_pmixrun_world: "futures/pmixrun/world",
            futures_mpirun_spawn: "futures/mpirun/spawn",
            futures_mpirun_world: "futures/mpirun/world",
            rixa_mpirun_openpmix_bundled: "rixa/mpirun-openpmix/bundled",
            rixa_pmixrun_bundled: "rixa/pmixrun/bundled",
            rixa_pmixrun_rpmix: "rixa/pmixrun/rpmix",
            rixa_mpirun_rpmix: "rixa/mpirun/rpmix",
            impi_openpmix_2: "impi/openpmix/2",
            impi_mpirun_2: "impi/mpirun/2",
            impi_pmixrun_2: "impi/pmixrun/2",
            impi_openpmix_4: "impi/openpmix/4",
            impi_mpirun_4: "impi/mpirun/4",
            impi_pmixrun_4: "impi/pmixrun/4",
        });
    }
}
