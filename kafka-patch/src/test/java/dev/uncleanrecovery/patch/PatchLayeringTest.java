// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The agent's packages as docs/architecture.md lists them: the broker's and the controller's code never meet (a
 * broker-only or controller-only change stays on its side), and the message adapters serve both.
 */
@AnalyzeClasses(packages = "dev.uncleanrecovery.patch", importOptions = ImportOption.DoNotIncludeTests.class)
class PatchLayeringTest {

    private static final String PATCH = "dev.uncleanrecovery.patch";

    @ArchTest
    static final ArchRule the_broker_side_does_not_use_the_controller_side = noClasses()
            .that().resideInAPackage(PATCH + ".broker..")
            .should().dependOnClassesThat().resideInAPackage(PATCH + ".controller..");

    @ArchTest
    static final ArchRule the_controller_side_does_not_use_the_broker_side = noClasses()
            .that().resideInAPackage(PATCH + ".controller..")
            .should().dependOnClassesThat().resideInAPackage(PATCH + ".broker..");

    @ArchTest
    static final ArchRule the_message_adapters_use_neither_side = noClasses()
            .that().resideInAPackage(PATCH + ".wire..")
            .should().dependOnClassesThat().resideInAnyPackage(PATCH + ".broker..", PATCH + ".controller..");
}
