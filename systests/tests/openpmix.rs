//! OpenPMIx peers both ways: OpenPMIx hosts with rpmix ranks, OpenPMIx ranks
//! under rpmix, OpenPMIx's examples and its own test programs on both libraries.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/mixed-tests.sh
    mod openpmix_hosts {
        use super::*;
        driver_cases!("mixed-tests.sh", "mixed", secs(300), [], {
            rm_client_basic: "rm/client_basic",
            rm_client_basic_described: "rm/client_basic-described",
            rm_client_cred: "rm/client_cred",
            rm_client_jctl_signal: "rm/client_jctl_signal",
            rm_client_basic_deferred: "rm/client_basic-deferred",
            rm_client_events: "rm/client_events",
            rm_client_abort: "rm/client_abort",
            rm_pmixctl_ps: "rm/pmixctl-ps",
            rm_pmixctl_output: "rm/pmixctl-output",
            rm_pps: "rm/pps",
            rm_pmixctl_rpmix_host: "rm/pmixctl-rpmix-host",
            server_hello: "server/hello",
            server_client: "server/client",
            server_client2: "server/client2",
            server_dmodex: "server/dmodex",
            server_nodeinfo: "server/nodeinfo",
            server_pub: "server/pub",
            server_pubi: "server/pubi",
            mpirun_hello: "mpirun/hello",
            mpirun_client: "mpirun/client",
            mpirun_dmodex: "mpirun/dmodex",
            mpirun_nodeinfo: "mpirun/nodeinfo",
            mpirun_pub: "mpirun/pub",
        });
    }
    /// tools/openpmix-clients-tests.sh
    mod openpmix_ranks {
        use super::*;
        driver_cases!("openpmix-clients-tests.sh", "opxclients", secs(300), [], {
            pmixrun_client_basic: "pmixrun/client_basic",
            pmixrun_client_events: "pmixrun/client_events",
            pmixrun_jctl_signal: "pmixrun/jctl_signal",
            pmixrun_jctl_signals: "pmixrun/jctl_signals",
            pmixrun_monitor_hb: "pmixrun/monitor_hb",
            pmixrun_client_spawn: "pmixrun/client_spawn",
            pmixrun_client_abort: "pmixrun/client_abort",
            pmixrun_oex_hello: "pmixrun/oex/hello",
            pmixrun_oex_client: "pmixrun/oex/client",
            pmixrun_oex_client2: "pmixrun/oex/client2",
            pmixrun_oex_dmodex: "pmixrun/oex/dmodex",
            pmixrun_oex_nodeinfo: "pmixrun/oex/nodeinfo",
            pmixrun_oex_pub: "pmixrun/oex/pub",
            pmixrun_oex_pubi: "pmixrun/oex/pubi",
            pmixrun_mpi_hello: "pmixrun/mpi/hello",
            pmixrun_mpi_spawn: "pmixrun/mpi/spawn",
            pmixrun_mpi_abort: "pmixrun/mpi/abort",
            rm_client_basic: "rm/client_basic",
            rm_client_basic_deferred: "rm/client_basic-deferred",
            rm_client_events: "rm/client_events",
            rm_jctl_signal: "rm/jctl_signal",
            rm_client_abort: "rm/client_abort",
            mixed_client_basic: "mixed/client_basic",
            tcp_identity: "tcp/identity",
            tcp_fuzz: "tcp/fuzz",
            tools_pps: "tools/pps",
            tools_pevent: "tools/pevent",
            tools_iof: "tools/iof",
        });
    }
    /// tools/openpmix-simple-tests.sh
    mod test_programs {
        use super::*;
        driver_cases!("openpmix-simple-tests.sh", "opxsimple", secs(300), [("SIMPLE_TIMEOUT", "20"), ("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            mpirun_simpclient: "mpirun/simpclient",
            pmixrun_simpclient: "pmixrun/simpclient",
            simptest_simpclient: "simptest/simpclient",
            mpirun_simpclient_abort: "mpirun/simpclient-abort",
            pmixrun_simpclient_abort: "pmixrun/simpclient-abort",
            simptest_simpclient_abort: "simptest/simpclient-abort",
            mpirun_simppub: "mpirun/simppub",
            pmixrun_simppub: "pmixrun/simppub",
            simptest_simppub: "simptest/simppub",
            mpirun_simpft: "mpirun/simpft",
            pmixrun_simpft: "pmixrun/simpft",
            simptest_simpft: "simptest/simpft",
            mpirun_simptimeout: "mpirun/simptimeout",
            pmixrun_simptimeout: "pmixrun/simptimeout",
            simptest_simptimeout: "simptest/simptimeout",
            simptest_simpdie: "simptest/simpdie",
            mpirun_simpio: "mpirun/simpio",
            pmixrun_simpio: "pmixrun/simpio",
            simptest_simpio: "simptest/simpio",
            mpirun_simpcycle: "mpirun/simpcycle",
            pmixrun_simpcycle: "pmixrun/simpcycle",
            simptest_simpcycle: "simptest/simpcycle",
            mpirun_simpjctrl: "mpirun/simpjctrl",
            pmixrun_simpjctrl: "pmixrun/simpjctrl",
            mpirun_doubleget: "mpirun/doubleget",
            pmixrun_doubleget: "pmixrun/doubleget",
            mpirun_get_put_example: "mpirun/get_put_example",
            pmixrun_get_put_example: "pmixrun/get_put_example",
            simptest_get_put_example: "simptest/get_put_example",
            mpirun_hybrid: "mpirun/hybrid",
            pmixrun_hybrid: "pmixrun/hybrid",
            single_simpfabric: "single/simpfabric",
            single_simpsched: "single/simpsched",
            single_simpvni: "single/simpvni",
            single_hybrid: "single/hybrid",
            simptest_simptool: "simptest/simptool",
            attach_simptool: "attach/simptool",
        });
    }
    /// tools/examples-tests.sh
    mod examples {
        use super::*;
        driver_cases!("examples-tests.sh", "", secs(300), [("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")], {
            server_hello: "server-hello",
            mpirun_hello: "mpirun-hello",
            pmixrun_hello: "pmixrun-hello",
            server_nodeinfo: "server-nodeinfo",
            mpirun_nodeinfo: "mpirun-nodeinfo",
            pmixrun_nodeinfo: "pmixrun-nodeinfo",
            server_client: "server-client",
            mpirun_client: "mpirun-client",
            pmixrun_client: "pmixrun-client",
            server_client2: "server-client2",
            mpirun_client2: "mpirun-client2",
            pmixrun_client2: "pmixrun-client2",
            server_dmodex: "server-dmodex",
            mpirun_dmodex: "mpirun-dmodex",
            pmixrun_dmodex: "pmixrun-dmodex",
            server_pub: "server-pub",
            mpirun_pub: "mpirun-pub",
            pmixrun_pub: "pmixrun-pub",
            server_pubi: "server-pubi",
            pmixrun_pubi: "pmixrun-pubi",
            server_log: "server-log",
            mpirun_log: "mpirun-log",
            pmixrun_log: "pmixrun-log",
            server_jctrl: "server-jctrl",
            mpirun_jctrl: "mpirun-jctrl",
            pmixrun_jctrl: "pmixrun-jctrl",
            mpirun_dynamic: "mpirun-dynamic",
            pmixrun_dynamic: "pmixrun-dynamic",
            server_bad_exit: "server-bad_exit",
            server_abi_no_init: "server-abi_no_init",
            mpirun_abi_no_init: "mpirun-abi_no_init",
            pmixrun_abi_no_init: "pmixrun-abi_no_init",
            server_abi_with_init: "server-abi_with_init",
            pmixrun_abi_with_init: "pmixrun-abi_with_init",
            server_group: "server-group",
            mpirun_group: "mpirun-group",
            pmixrun_group: "pmixrun-group",
            server_group_dmodex: "server-group_dmodex",
            mpirun_group_dmodex: "mpirun-group_dmodex",
            pmixrun_group_dmodex: "pmixrun-group_dmodex",
            server_group_lcl_cid: "server-group_lcl_cid",
            mpirun_group_lcl_cid: "mpirun-group_lcl_cid",
            pmixrun_group_lcl_cid: "pmixrun-group_lcl_cid",
            server_asyncgroup: "server-asyncgroup",
            mpirun_asyncgroup: "mpirun-asyncgroup",
            pmixrun_asyncgroup: "pmixrun-asyncgroup",
            server_tool: "server-tool",
            pmixrun_tool: "pmixrun-tool",
        });
    }
}
