// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaConstructor.CONSTRUCTOR_NAME;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Calendar;
import java.util.Date;
import java.util.Properties;
import java.util.Random;
import java.util.Scanner;
import java.util.Timer;
import java.util.TimerTask;
import org.apache.kafka.common.TopicPartition;

/**
 * The layering docs/architecture.md describes, checked on the compiled classes: a package uses only the ones below
 * it, and the election policy is a pure function of its inputs (a surprising choice must replay in a unit test,
 * with no broker, disk or clock).
 */
@AnalyzeClasses(packages = "dev.uncleanrecovery", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    private static final String ROOT = "dev.uncleanrecovery";

    @ArchTest
    static final ArchRule no_package_uses_a_higher_layer = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("cli").definedBy(ROOT + ".cli..")
            .layer("view").definedBy(ROOT + ".view..")
            .layer("recovery").definedBy(ROOT + ".recovery..")
            .layer("execute").definedBy(ROOT + ".execute..")
            .layer("salvage").definedBy(ROOT + ".salvage..")
            .layer("formats").definedBy(ROOT + ".formats..")
            .layer("logdir").definedBy(ROOT + ".logdir..")
            .layer("election").definedBy(ROOT + ".election..")
            .layer("probe").definedBy(ROOT + ".probe..")
            .layer("cluster").definedBy(ROOT + ".cluster..")
            .layer("connect").definedBy(ROOT + ".connect..")
            .layer("evidence").definedBy(ROOT + ".evidence..")
            .layer("protocol").definedBy(ROOT + ".protocol..")
            .layer("wire").definedBy(ROOT + ".wire..")
            .layer("support").definedBy(ROOT + ".support..")
            .layer("harness").definedBy(ROOT + ".localcluster..", ROOT + ".harness..")
            .whereLayer("cli").mayNotBeAccessedByAnyLayer()
            // what people see of plans and results: the commands print through it, and nothing below knows it
            .whereLayer("view").mayOnlyBeAccessedByLayers("cli")
            .whereLayer("recovery").mayOnlyBeAccessedByLayers("view", "cli")
            .whereLayer("execute").mayOnlyBeAccessedByLayers("recovery", "view", "cli")
            .whereLayer("salvage").mayOnlyBeAccessedByLayers("execute", "recovery", "view", "cli")
            .whereLayer("formats").mayOnlyBeAccessedByLayers("salvage", "execute", "recovery", "view", "cli")
            .whereLayer("logdir").mayOnlyBeAccessedByLayers("formats", "salvage", "execute", "recovery", "view", "cli")
            .whereLayer("election").mayOnlyBeAccessedByLayers("formats", "salvage", "execute", "recovery", "view",
                    "cli")
            .whereLayer("probe").mayOnlyBeAccessedByLayers("formats", "salvage", "execute", "recovery", "view", "cli")
            .whereLayer("cluster").mayOnlyBeAccessedByLayers("probe", "election", "formats", "salvage", "execute",
                    "recovery", "view", "cli")
            .whereLayer("connect").mayOnlyBeAccessedByLayers("cluster", "probe", "salvage", "execute", "recovery",
                    "view", "cli")
            .whereLayer("evidence").mayOnlyBeAccessedByLayers("probe", "election", "formats", "salvage", "execute",
                    "recovery", "view", "cli")
            .whereLayer("protocol").mayOnlyBeAccessedByLayers("connect", "probe", "salvage", "execute")
            .whereLayer("wire").mayOnlyBeAccessedByLayers("protocol", "connect", "probe", "salvage", "execute")
            // the tool ships without the local cluster: demo (module demo) joins the two
            .whereLayer("harness").mayNotBeAccessedByAnyLayer();

    /**
     * The harness is on this module's test classpath only, so its classes are imported here and a dependency on them
     * would show; the layer rule above passes vacuously for a class in no layer, this one does not.
     */
    @ArchTest
    static final ArchRule the_tool_does_not_depend_on_the_harness = noClasses()
            .that().resideInAPackage(ROOT + "..")
            .and().resideOutsideOfPackages(ROOT + ".localcluster..", ROOT + ".harness..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".localcluster..", ROOT + ".harness..")
            .because("the tool's jar is the product: the local cluster of the tests and of demo ships in demo's jar");

    @ArchTest
    static final ArchRule the_views_parse_no_option_and_open_no_connection = noClasses()
            .that().resideInAPackage(ROOT + ".view..")
            .should().dependOnClassesThat().resideInAnyPackage("picocli..", "org.apache.kafka.clients..")
            .because("a command parses and calls; what it prints is a function of the values it got back");

    @ArchTest
    static final ArchRule the_root_package_holds_only_the_shared_exception = classes()
            .that().resideInAPackage(ROOT).should().haveSimpleNameStartingWith("UserInputException");

    /** Types in the packages election may use that reach the clock, the process, other threads or chance. */
    private static final DescribedPredicate<JavaClass> CLOCK_PROCESS_OR_CHANCE = assignableTo(Clock.class)
            .or(assignableTo(InstantSource.class)).or(assignableTo(Thread.class)).or(assignableTo(TimerTask.class))
            .or(equivalentTo(System.class)).or(equivalentTo(Runtime.class)).or(equivalentTo(ProcessBuilder.class))
            .or(assignableTo(Process.class)).or(assignableTo(ClassLoader.class)).or(assignableTo(Date.class))
            .or(assignableTo(Calendar.class)).or(equivalentTo(Timer.class)).or(assignableTo(Random.class))
            .or(equivalentTo(Scanner.class)).or(equivalentTo(Properties.class))
            .as("clock, process, thread or random types");

    @ArchTest
    static final ArchRule election_does_no_io_and_reads_no_clock = classes()
            .that().resideInAPackage(ROOT + ".election..")
            .should().onlyDependOnClassesThat(
                    resideInAnyPackage(ROOT + ".election..", ROOT + ".evidence..", "java.lang", "java.util",
                            "java.util.function", "java.util.stream", "java.time",
                            // annotations that only say how a value is spelled in JSON (@JsonValue)
                            "com.fasterxml.jackson.annotation")
                            .and(not(CLOCK_PROCESS_OR_CHANCE))
                            .or(equivalentTo(TopicPartitionState.class))
                            .or(equivalentTo(TopicPartition.class)))
            .because("the policy must replay in a unit test: the caller passes the time and the evidence");

    /** What creates, replaces or removes a file's name, or opens one for writing. */
    private static final DescribedPredicate<JavaCall<?>> WRITES_A_FILE = target(owner(equivalentTo(Files.class)))
            .and(target(name("write").or(name("writeString")).or(name("newOutputStream")).or(name("newBufferedWriter"))
                    .or(name("move")).or(name("copy")).or(name("createLink")).or(name("createFile"))
                    .or(name("delete")).or(name("deleteIfExists")).or(name("createDirectory"))
                    .or(name("createDirectories"))))
            .or(target(owner(assignableTo(FileOutputStream.class))).and(target(name(CONSTRUCTOR_NAME))))
            .as("a call that writes, moves or removes a file");

    @ArchTest
    static final ArchRule every_file_is_written_durably_in_one_place = noClasses()
            // DurableFiles and its nested types; the test harness (the local cluster) is on the classpath of these
            // tests only, and its node files are scratch
            .that(not(nameStartingWith(DurableFiles.class.getName())))
            .and().resideOutsideOfPackages(ROOT + ".localcluster..", ROOT + ".harness..")
            .should().callCodeUnitWhere(WRITES_A_FILE)
            .because("a name is durable only once its directory is flushed: DurableFiles does it for every file the"
                    + " next step depends on (journal, plan, result, evidence, salvage)");

    @ArchTest
    static final ArchRule election_asks_no_clock_for_the_time = noClasses()
            .that().resideInAPackage(ROOT + ".election..")
            .should().callMethodWhere(target(name("now")).and(target(owner(resideInAPackage("java.time..")))))
            .because("LocalDateTime.now() and its kind read the system clock as Instant.now() does");
}
