//! Slurm: srun --mpi=pmix on one node and across two and three nodes (22.05,
//! and 24.11 from the Debian 13 root), rpmix in every slurmstepd and task.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/slurm-tests.sh
    mod srun {
        use super::*;
        driver_cases!("slurm-tests.sh", "", secs(300), [], {
            basic: "basic",
            event_host: "event-host",
            abort: "abort",
            fence_kill: "fence-kill",
            mpi_hello: "mpi-hello",
            mpi_abort: "mpi-abort",
            oex_hello: "oex-hello",
            oex_nodeinfo: "oex-nodeinfo",
            oex_client: "oex-client",
            oex_client2: "oex-client2",
            oex_dmodex: "oex-dmodex",
            impi_2: "impi-2",
            impi_4: "impi-4",
        });
    }
    /// tools/slurm2-tests.sh
    mod two_nodes {
        use super::*;
        driver_cases!("slurm2-tests.sh", "", secs(600), [], {
            client: "slurm2/client",
            dmodex: "slurm2/dmodex",
            partial: "slurm2/partial",
            mpi_hello: "slurm2/mpi-hello",
            mpi_abort: "slurm2/mpi-abort",
            fence_kill: "slurm2/fence-kill",
            fence_kill_data: "slurm2/fence-kill-data",
            impi: "slurm2/impi",
            spawn: "slurm2/spawn",
        });
    }
    /// tools/slurm2-tests.sh with SLURM2_NODES=3
    mod three_nodes {
        use super::*;
        driver_cases!("slurm2-tests.sh", "", secs(600), [("SLURM2_NODES", "3")], {
            client: "slurm2/client",
            dmodex: "slurm2/dmodex",
            partial: "slurm2/partial",
            mpi_hello: "slurm2/mpi-hello",
            mpi_abort: "slurm2/mpi-abort",
            fence_kill: "slurm2/fence-kill",
            impi: "slurm2/impi",
            spawn: "slurm2/spawn",
            fence_kill_data: "slurm2/fence-kill-data",
        });
    }
    /// tools/slurm2-tests.sh with SLURM2_SLURM=24.11
    mod slurm_24_11 {
        use super::*;
        driver_cases!("slurm2-tests.sh", "", secs(600), [("SLURM2_SLURM", "24.11")], {
            client: "slurm2-24.11/client",
            dmodex: "slurm2-24.11/dmodex",
            partial: "slurm2-24.11/partial",
            mpi_hello: "slurm2-24.11/mpi-hello",
            mpi_abort: "slurm2-24.11/mpi-abort",
            fence_kill: "slurm2-24.11/fence-kill",
            fence_kill_data: "slurm2-24.11/fence-kill-data",
            impi: "slurm2-24.11/impi",
            spawn: "slurm2-24.11/spawn",
        });
    }
}
