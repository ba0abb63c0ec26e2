// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.connect.HostPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineUsageTest {

    @Test
    void help_lists_every_command() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).isZero();
        // the names that open a line of the Commands section: the root's own description names plan and execute too
        assertThat(commandSection(run.out())).containsExactly("status", "plan", "execute", "recover", "inspect",
                "replay", "consumer-offsets", "hanging-transactions", "render", "demo", "help");
        assertThat(run.out()).contains("--bootstrap-server", "--command-config");
    }

    @Test
    void demo_without_the_demo_jar_says_how_to_run_it() {
        // the local cluster demo breaks is the demo jar's, which only the launcher puts on the classpath
        CliRun run = CliRun.of("demo");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: demo needs the demo jar on the classpath: run it as"
                + " bin/kafka-unclean-recovery.sh demo");
        assertThat(CliRun.of("demo", "--help").out()).contains("--kafka-home=DIR", "--practice")
                .doesNotContain("--bootstrap-server");
    }

    /** "  plan     Probe every replica..." → "plan", for each command line of the help's Commands section. */
    static List<String> commandSection(String help) {
        List<String> lines = help.lines().toList();
        return lines.subList(lines.indexOf("Commands:") + 1, lines.size()).stream()
                .takeWhile(line -> !line.isBlank())
                .filter(line -> line.matches("  \\S.*"))
                .map(line -> line.strip().split("\\s+")[0])
                .toList();
    }

    @Test
    void no_command_is_a_usage_error() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("Missing command").doesNotContain("class-data-training");
    }

    @Test
    void the_class_data_training_is_no_command() {
        CliRun run = CliRun.of("class-data-training");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("Unmatched argument", "class-data-training");
    }

    @Test
    void the_class_data_training_run_is_quiet_and_leaves_nothing_behind() throws Exception {
        Set<String> before = trainingDirectories();

        Process run = training();
        String output = new String(run.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        assertThat(run.exitValue()).as(output).isZero();
        assertThat(output).isEmpty();
        assertThat(trainingDirectories()).isEqualTo(before);
    }

    @Test
    void the_class_data_training_run_loads_the_classes_a_real_plan_and_execute_load() throws Exception {
        // The archive holds exactly what this run loads: it must reach the plan, election, JSON, table and
        // network code, or recording it from this run saves nothing.
        Process run = training("-Xlog:class+load=info");
        String loaded = new String(run.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        assertThat(run.exitValue()).isZero();
        assertThat(loaded).contains(" dev.uncleanrecovery.election.LeaderChoice ", " dev.uncleanrecovery.formats.PlanFile ",
                " dev.uncleanrecovery.formats.ResultFile ", " dev.uncleanrecovery.view.PlanPrinter ",
                " com.fasterxml.jackson.databind.ObjectMapper ", " org.apache.kafka.clients.NetworkClient ",
                " dev.uncleanrecovery.cluster.ClusterDiscovery ",
                // the Admin calls of the run lock and the elections, the answers' classes and the error table
                " org.apache.kafka.clients.admin.KafkaAdminClient ", " org.apache.kafka.common.requests.ElectLeadersResponse ",
                " org.apache.kafka.common.errors.NotLeaderOrFollowerException ");
    }

    /** The run the launcher records its class-data archive from: its own main class, as bin/ starts it. */
    private static Process training(String... jvmOptions) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ClassDataTraining.class.getName()));
        Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
        run.getOutputStream().close();
        return run;
    }

    private static Set<String> trainingDirectories() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.startsWith("kafka-unclean-recovery-training"))
                    .collect(Collectors.toSet());
        }
    }

    @Test
    void unknown_option_is_a_usage_error_with_one_clear_line() {
        CliRun run = CliRun.of("status", "--no-such-option");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("Unknown option: '--no-such-option'");
    }

    @Test
    void status_without_bootstrap_server_says_what_is_missing() {
        CliRun run = CliRun.of("status");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: --bootstrap-server is required (HOST:PORT of any broker)");
    }

    @Test
    void a_listener_that_never_answers_fails_within_the_timeout_instead_of_hanging() throws IOException {
        // accepts connections and never answers: what a hung broker looks like from outside
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + silent.getLocalPort();
            long start = System.nanoTime();
            CliRun run = CliRun.of("--bootstrap-server", address, "status", "--admin-timeout-ms", "1500");
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;

            assertThat(run.exitCode()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("no answer from --bootstrap-server " + address + " within 1.5 s");
            assertThat(run.err().lines().count()).isEqualTo(1);
            assertThat(elapsedMs).as("bounded by the timeout, not a hang").isLessThan(30_000);
        }
    }

    @Test
    void refused_connections_end_the_run_without_waiting_for_the_timeout() throws IOException {
        int closedPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        // a timeout of ten minutes: only the refusal can end this run with the refusal's message
        CliRun run = CliRun.of("status", "--bootstrap-server", "127.0.0.1:" + closedPort, "--admin-timeout-ms", "600000");

        assertThat(run.exitCode()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err().strip()).startsWith("error: could not describe the cluster: every --bootstrap-server address"
                + " refused the connection").contains("(127.0.0.1:" + closedPort + ")");
        assertThat(run.err()).doesNotContain("within");
    }

    @Test
    void an_unresolvable_host_is_named_in_our_words() {
        CliRun run = CliRun.of("status", "--bootstrap-server", "no-such-broker.invalid:9092");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: cannot resolve the host of --bootstrap-server"
                + " no-such-broker.invalid:9092 (unknown to DNS and /etc/hosts here: check the name, or give the broker's"
                + " IP address)");
    }

    @Test
    void global_options_are_accepted_before_and_after_the_command() {
        CliRun before = CliRun.of("--admin-timeout-ms", "1", "--bootstrap-server", "127.0.0.1:1", "status");
        CliRun after = CliRun.of("status", "--admin-timeout-ms", "1", "--bootstrap-server", "127.0.0.1:1");

        assertThat(before.err()).doesNotContain("Unknown option").contains("--bootstrap-server 127.0.0.1:1");
        assertThat(after.err()).isEqualTo(before.err());
        assertThat(before.exitCode()).isEqualTo(after.exitCode()).isEqualTo(ExitCode.UNREACHABLE);
    }

    @Test
    void a_command_option_before_the_command_name_is_refused_saying_where_it_goes() {
        CliRun run = CliRun.of("--topic", "orders", "status", "--bootstrap-server", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().lines().findFirst()).hasValue("error: --topic is an option of status: give it after the"
                + " command name (kafka-unclean-recovery.sh status --topic ...); only --bootstrap-server,"
                + " --command-config, --admin-timeout-ms, --output, --verbose go before it");
    }

    @Test
    void a_bootstrap_server_without_a_port_is_bad_usage_naming_what_is_missing() {
        Map<String, String> refused = Map.of(
                "127.0.0.1", "127.0.0.1 has no port",
                "broker-1.example:", "broker-1.example: has no port",
                "[::1]", "[::1] has no port",
                "::1", "::1 is an IPv6 address without brackets, or has no port",
                "broker-1:99999", "broker-1:99999 has port 99999, not one of 1-65535",
                ":9092", ":9092 has no host",
                "10.0.0.1:9092,10.0.0.2", "10.0.0.1:9092,10.0.0.2: 10.0.0.2 has no port");
        refused.forEach((given, why) -> {
            CliRun run = CliRun.of("status", "--bootstrap-server", given);

            assertThat(run.exitCode()).as(given).isEqualTo(ExitCode.USAGE);
            assertThat(run.err().strip()).as(given).isEqualTo("error: --bootstrap-server " + why + "; give HOST:PORT,"
                    + " e.g. 10.0.0.1:9092 (an IPv6 address in brackets: [::1]:9092)");
        });
        assertThat(HostPort.parse("[::1]:9092")).isEqualTo(new HostPort("::1", 9092));
        assertThat(HostPort.parse("broker-1.example:9093")).isEqualTo(new HostPort("broker-1.example", 9093));
    }

    @Test
    void commands_that_never_connect_do_not_take_connection_options() {
        for (String command : List.of("inspect", "render")) {
            CliRun help = CliRun.of(command, "--help");
            assertThat(help.out()).as(command).doesNotContain("--bootstrap-server", "--command-config", "--admin-timeout-ms");
            // with the command's required options, so that the connection option is the only mistake
            String[] required = command.equals("render") ? new String[] {"--plan", "p.json", "--html", "p.html"}
                    : new String[] {"--log-dir", "/nonexistent"};
            assertThat(CliRun.of(Stream.concat(Stream.of(command), Stream.concat(Stream.of(required),
                            Stream.of("--bootstrap-server", "127.0.0.1:9092"))).toArray(String[]::new)).err())
                    .as(command).contains("Unknown option", "--bootstrap-server");
        }
        assertThat(CliRun.of("plan", "--help").out()).contains("--bootstrap-server", "--command-config", "--admin-timeout-ms");
    }

    @Test
    void help_is_a_command() {
        CliRun help = CliRun.of("help", "plan");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).isEqualTo(CliRun.of("plan", "--help").out());
    }

    @Test
    void the_command_list_shows_each_summary_whole_within_120_columns() {
        String help = CliRun.of("--help").out();
        picocli.CommandLine root = Main.withoutUnusedOptions(new picocli.CommandLine(new RootCommand()));

        // the summary is each command's one-line header, wrapped by picocli but never cut
        String joined = help.replaceAll("\\s+", " ");
        root.getSubcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                String[] header = sub.getCommandSpec().usageMessage().header();
                assertThat(header).as(name).hasSize(1);
                assertThat(joined).as(name).contains(name + " " + header[0]);
            }
        });
        root.getSubcommands().keySet().forEach(name -> assertThat(CliRun.of(name, "--help").out().lines())
                .as(name).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120)));
        assertThat(help.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
    }

    @Test
    void every_help_breaks_its_lines_between_words_only_within_80_columns() {
        for (picocli.CommandLine command : everyCommand(Main.commandLine())) {
            String name = command.getCommandSpec().qualifiedName();
            String help = usage(command, 80);

            assertThat(help.lines()).as(name).allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(80));
            // a word split across lines ("sasl." / "*") reads as two words where a line wide enough has one
            assertThat(words(help)).as(name).containsExactlyElementsOf(words(usage(command, 1000)));
            assertThat(help).as(name).doesNotContainPattern("kafka-unclean-recovery [a-z]");
        }
    }

    @Test
    void every_command_ends_its_help_with_its_exit_codes_and_every_one_that_connects_with_4() {
        picocli.CommandLine root = Main.commandLine();
        List<picocli.CommandLine> commands = new java.util.ArrayList<>(List.of(root));
        root.getSubcommands().forEach((name, sub) -> {
            if (!List.of("help", "demo").contains(name)) {
                commands.add(sub);
            }
        });
        for (picocli.CommandLine command : commands) {
            String name = command.getCommandSpec().qualifiedName();
            Map<String, String> codes = command.getCommandSpec().usageMessage().exitCodeList();
            boolean connects = command.getCommandSpec().findOption("--bootstrap-server") != null;

            assertThat(codes).as(name).containsKeys("0", "1", "2");
            assertThat("2:" + codes.get("2")).as(name).startsWith(ExitCode.USAGE_HELP);
            assertThat(codes.containsKey("4")).as(name + " connects").isEqualTo(connects);
            if (connects) {
                assertThat("4:" + codes.get("4")).as(name).startsWith(ExitCode.UNREACHABLE_HELP);
            }
        }
        List<String> executeHelp = CliRun.of("execute", "--help").out().lines().toList();
        assertThat(executeHelp.subList(executeHelp.indexOf("Exit codes:"), executeHelp.size()))
                .anyMatch(line -> line.startsWith("  2   bad usage or input: fix the command"))
                .anyMatch(line -> line.startsWith("  4   the cluster could not be reached"));
    }

    @Test
    void every_command_that_reads_or_writes_a_result_file_takes_it_as_result_file() {
        for (String command : List.of("execute", "render", "replay", "consumer-offsets", "hanging-transactions")) {
            assertThat(CliRun.of(command, "--help").out()).as(command).contains("--result-file=FILE")
                    .doesNotContainPattern("--result[= ]");
        }
    }

    private static List<picocli.CommandLine> everyCommand(picocli.CommandLine command) {
        List<picocli.CommandLine> all = new java.util.ArrayList<>(List.of(command));
        command.getSubcommands().values().forEach(sub -> all.addAll(everyCommand(sub)));
        return all;
    }

    private static String usage(picocli.CommandLine command, int width) {
        command.getCommandSpec().usageMessage().width(width);
        return command.getUsageMessage(picocli.CommandLine.Help.Ansi.OFF);
    }

    private static List<String> words(String text) {
        return List.of(text.strip().split("\\s+"));
    }

    @Test
    void partition_without_topic_is_refused_before_connecting() {
        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "status", "--partition", "0");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--partition needs --topic");
    }

    @Test
    void missing_command_config_file_is_named(@TempDir Path dir) {
        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "--command-config",
                dir.resolve("absent.properties").toString(), "status");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("absent.properties does not exist or is not readable");
    }

    @Test
    void malformed_election_json_file_is_one_clear_line(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("bad.json"), "{\"partitions\": [{\"topic\": \"t\", \"partition\": \"0\"}]}");

        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "status", "--path-to-json-file", file.toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("partitions[0].partition must be an integer");
    }

    @Test
    void broker_addresses_are_read_as_kafka_clients_reads_them() {
        PlanOptions options = new PlanOptions();
        options.brokerAddresses = List.of("1=10.0.0.1:9092", "2=[::1]:19092", " 3=broker-3.example:9093 ");

        assertThat(options.unlistedBrokers()).extracting(b -> b.id() + " " + b.address())
                .containsExactly("1 10.0.0.1:9092", "2 [::1]:19092", "3 broker-3.example:9093");
        for (String malformed : List.of("=h:1", "x=h:1", "1=h", "1=:9092", "1=h:0", "1=h:99999", "-1=h:1", "1")) {
            options.brokerAddresses = List.of(malformed);
            assertThatThrownBy(options::unlistedBrokers).as(malformed).isInstanceOf(UserInputException.class)
                    .hasMessageContaining("--broker-address takes ID=HOST:PORT");
        }
    }

    @Test
    void malformed_broker_address_is_refused_before_connecting() {
        for (String command : List.of("plan", "recover")) {
            CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", command, "--broker-address", "1=host-without-port");

            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--broker-address takes ID=HOST:PORT (e.g. 1=10.0.0.1:9092), not"
                    + " '1=host-without-port'").doesNotContain("127.0.0.1:1");
        }
    }
}
