// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.HostPort;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.support.RunFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/** How {@code plan} and {@code recover} probe and choose. */
class PlanOptions {

    private static final DateTimeFormatter FILE_TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    @Option(names = "--strategy", paramLabel = "STRATEGY", defaultValue = "balanced",
            description = "balanced (default): decide only when every LastKnownELR member answered;"
                    + " proactive: decide from whoever answered by the deadline.")
    Strategy strategy;

    @Option(names = "--exclude-broker", paramLabel = "ID", split = ",",
            description = "Never elect a replica on these brokers (repeat or comma separate).")
    List<Integer> excludedBrokers;

    @Option(names = "--max-truncated-records", paramLabel = "N",
            description = "Skip a partition whose choice would make other replicas truncate more than N records;"
                    + " a replica whose log is unknown counts as over N.")
    Long maxTruncatedRecords;

    @Option(names = "--max-committed-loss", paramLabel = "N",
            description = "Skip a partition whose choice would destroy more than N committed records (below a"
                    + " replica's high watermark); records of unknown commitment (past every known high watermark)"
                    + " count as over N.")
    Long maxCommittedLoss;

    @Option(names = "--allow-unknown-truncation",
            description = "With --max-truncated-records or --max-committed-loss: count only the known loss (a"
                    + " replica that did not answer may lose any amount) and only the known committed records.")
    boolean allowUnknownTruncation;

    @Option(names = "--probe-timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Deadline for asking every replica; a broker silent until then counts as UNREACHABLE"
                    + " (default: ${DEFAULT-VALUE}).")
    long probeTimeoutMs;

    @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
            description = "auto (default): GetReplicaLogInfo on brokers that advertise it (kafka-patch agent), stock RPCs"
                    + " elsewhere; native: GetReplicaLogInfo only; stock: ListOffsets and Fetch only.")
    ProbeMode probeMode;

    @Option(names = "--evidence", paramLabel = "FILE", split = ",",
            description = "Evidence files written by 'inspect' on stopped brokers: their logs count (truncation,"
                    + " balanced waiting) although those brokers cannot be elected.")
    List<Path> evidenceFiles;

    @Option(names = "--accept-unidentified-evidence",
            description = "Use --evidence that names no cluster id (meta.properties without cluster.id) or a log"
                    + " without a topic id (partition.metadata missing), which cannot be told from another cluster's or"
                    + " a deleted topic's. A topic id that differs from the cluster's is refused all the same.")
    boolean acceptUnidentifiedEvidence;

    @Option(names = "--broker-address", paramLabel = "ID=HOST:PORT", split = ",",
            description = "Also probe a broker the cluster does not list (Kafka 3.x lists no fenced broker), at this"
                    + " address of the listener the tool uses; such a broker is never elected.")
    List<String> brokerAddresses;

    @Option(names = "--output-file", paramLabel = "FILE",
            description = "Where to write the plan (default: plan-<UTC timestamp>.json): a new file, never over one.")
    Path outputFile;

    /** The files {@code plan} and {@code recover} read and the plan they write, to check before anything is done. */
    RunFiles files(SelectionOptions select, GlobalOptions global) {
        return new RunFiles().reads("--command-config", global.commandConfig)
                .reads("--path-to-json-file", select.jsonFile).reads("--evidence", evidenceFiles)
                .creates("--output-file", outputFile);
    }

    /** The options {@code plan} and {@code recover} plan with. */
    PlanFlow.Options planning(SelectionOptions select) throws java.io.IOException {
        if (acceptUnidentifiedEvidence && (evidenceFiles == null || evidenceFiles.isEmpty())) {
            throw new UserInputException("--accept-unidentified-evidence needs --evidence");
        }
        return new PlanFlow.Options(select.selection(), election(), probe(), probeMode, diskEvidence(),
                unlistedBrokers(), acceptUnidentifiedEvidence);
    }

    List<BrokerState> unlistedBrokers() {
        List<BrokerState> brokers = new java.util.ArrayList<>();
        for (String given : brokerAddresses == null ? List.<String>of() : brokerAddresses) {
            brokers.add(brokerAddress(given.strip()));
        }
        return brokers;
    }

    /** {@code 1=10.0.0.1:9092}, an IPv6 host in brackets ({@code 1=[::1]:9092}), as {@code --bootstrap-server} takes it. */
    private static BrokerState brokerAddress(String given) {
        String invalid = "--broker-address takes ID=HOST:PORT (e.g. 1=10.0.0.1:9092), not '" + given + "'";
        int equals = given.indexOf('=');
        try {
            int id = Integer.parseInt(given.substring(0, Math.max(0, equals)));
            HostPort address = HostPort.parse(given.substring(equals + 1));
            if (id < 0) {
                throw new UserInputException(invalid);
            }
            return new BrokerState(id, address.host(), address.port(), null, true);
        } catch (IllegalArgumentException e) {
            throw new UserInputException(invalid);
        }
    }

    ElectionOptions election() {
        ElectionOptions options = ElectionOptions.defaults().withStrategy(strategy);
        if (excludedBrokers != null) {
            options = options.withExcludedBrokers(Set.copyOf(excludedBrokers));
        }
        if (maxTruncatedRecords != null) {
            if (maxTruncatedRecords < 0) {
                throw new UserInputException("--max-truncated-records must be >= 0");
            }
            options = options.withMaxTruncatedRecords(maxTruncatedRecords);
        }
        if (maxCommittedLoss != null) {
            if (maxCommittedLoss < 0) {
                throw new UserInputException("--max-committed-loss must be >= 0");
            }
            options = options.withMaxCommittedLoss(maxCommittedLoss);
        }
        if (allowUnknownTruncation && maxTruncatedRecords == null && maxCommittedLoss == null) {
            throw new UserInputException("--allow-unknown-truncation needs --max-truncated-records or --max-committed-loss");
        }
        options = options.withUnknownTruncationAllowed(allowUnknownTruncation);
        return options;
    }

    ProbeSettings probe() {
        return probeWithin("--probe-timeout-ms", probeTimeoutMs);
    }

    /**
     * The probe's settings under the deadline an option gives: the plan's probe and execute's second look alike.
     * Under 100 ms no broker answers a batch, and every replica would count as unreachable: refused, not raised.
     */
    static ProbeSettings probeWithin(String option, long deadlineMs) {
        if (deadlineMs < 100) {
            throw new UserInputException(option + " must be at least 100, not " + deadlineMs);
        }
        return ProbeSettings.within(Duration.ofMillis(deadlineMs));
    }

    ProbeMode probeMode() {
        return probeMode;
    }

    List<dev.uncleanrecovery.formats.EvidenceFile> diskEvidence() throws java.io.IOException {
        List<dev.uncleanrecovery.formats.EvidenceFile> files = new java.util.ArrayList<>();
        if (evidenceFiles != null) {
            for (Path file : evidenceFiles) {
                files.add(dev.uncleanrecovery.formats.EvidenceFile.read(file));
            }
        }
        return files;
    }

    Path outputFile(java.time.Instant now) {
        return outputFile != null ? outputFile : Path.of("plan-" + FILE_TIMESTAMP.format(now) + ".json");
    }
}
