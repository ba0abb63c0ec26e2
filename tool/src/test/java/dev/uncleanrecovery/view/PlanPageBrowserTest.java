// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan's page in a real browser: Debian's Chromium, headless, loads the file with no network, and its DOM and a
 * screenshot show what a reviewer sees. Skipped, with the reason, where no chromium is installed; CI installs it and
 * checks that this test ran. The screenshots in docs/ are theirs: plan-html.png of the example plan,
 * plan-html-result.png of a plan of several groups and its result; {@code -Dplan.page.docs=true} writes them again.
 */
class PlanPageBrowserTest {

    private static final Path OUT = Path.of("tool", "target", "plan-page");
    private static String chromium;

    @BeforeAll
    static void findChromium() throws IOException {
        chromium = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser").stream()
                .filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
        Assumptions.assumeTrue(chromium != null, "no chromium here (apt-get install chromium): the page is not rendered");
        Files.createDirectories(OUT);
    }

    @Test
    void the_example_plan_renders_with_its_replicas_drawn_and_makes_the_documented_screenshot() throws Exception {
        Plan plan = PagePlans.example();
        Path page = OUT.resolve("example.html");
        Files.deleteIfExists(page);
        PlanPage.write(page, plan, "plan.json", null, null);

        Path png = OUT.resolve("example.png");
        String dom = open(page, png, 1040, 1000);

        assertEveryPartitionIsOn(dom, plan);
        // one drawing, a row per replica: broker 1 unreachable, 3 and 2 drawn with their logs and high watermarks
        assertThat(PagePlans.occurrences(dom, "<svg class=\"logs\"")).isEqualTo(1);
        assertThat(PagePlans.occurrences(dom, "<g class=\"replica")).isEqualTo(3);
        assertThat(dom).contains("<rect class=\"unknown-log\"", "LEO 400", "LEO 200", "HW 150", "new log end 400",
                "★ broker 2");
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1040);
        // the green of the kept leader's log and the page's white sections are on the screenshot: it is drawn
        assertThat(share(image, 0x2f855a)).isGreaterThan(0.002);
        assertThat(distinctColours(image)).isGreaterThan(50);
        if (Boolean.getBoolean("plan.page.docs")) {
            Files.copy(png, Path.of("docs", "plan-html.png"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void every_group_of_a_plan_and_its_result_renders_with_cuts_told_apart() throws Exception {
        Plan plan = PagePlans.severalGroups();
        ResultFile result = PagePlans.resultOf(plan);
        Path page = OUT.resolve("several-groups.html");
        Files.deleteIfExists(page);
        PlanPage.write(page, plan, "plan-20261204-031200.json", result, "plan-20261204-031200-result.json");

        Path png = OUT.resolve("several-groups.png");
        String dom = open(page, png, 1040, 1800);

        assertEveryPartitionIsOn(dom, plan);
        // orders-0..3 share a section; payments-0 and audit.log-2 have their own
        assertThat(PagePlans.occurrences(dom, "<svg class=\"logs\"")).isEqualTo(3);
        assertThat(dom).contains("orders-0..3 (4 partitions)", "<rect class=\"cut-committed\"",
                "<rect class=\"cut-never\"", "<rect class=\"cut-unknown\"", "<rect class=\"salvage\"",
                "consumer groups read to 3250", "ELECTED ×4", ">REFUSED<");
        // the hostile group name is text, not an element
        assertThat(dom).contains("&lt;img src=x onerror=alert(1)&gt;").doesNotContain("<img");
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(share(image, 0xc53030)).as("committed cut, red").isGreaterThan(0.0002);
        assertThat(share(image, 0x2f855a)).as("leaders, green").isGreaterThan(0.002);
        if (Boolean.getBoolean("plan.page.docs")) {
            Files.copy(png, Path.of("docs", "plan-html-result.png"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Each partition to elect and each skipped one is named on the page, by itself or in its group's list. */
    private static void assertEveryPartitionIsOn(String dom, Plan plan) {
        Set<String> named = new HashSet<>();
        Matcher m = Pattern.compile("[A-Za-z0-9._-]+-\\d+").matcher(dom.replaceAll("<[^>]*>", " "));
        while (m.find()) {
            named.add(m.group());
        }
        List<String> all = new ArrayList<>();
        plan.partitions().stream().map(PlannedElection::topicPartition).forEach(tp -> all.add(tp.toString()));
        plan.skipped().forEach(s -> all.add(s.topicPartition().toString()));
        assertThat(named).containsAll(all);
    }

    /** Loads the page once: its DOM after rendering, and a screenshot of the window into {@code png}. */
    private static String open(Path page, Path png, int width, int height) throws Exception {
        Files.deleteIfExists(png);
        String dom = new String(run(List.of("--dump-dom", "--screenshot=" + png.toAbsolutePath(),
                "--window-size=" + width + "," + height, "--hide-scrollbars", page.toUri().toString())),
                StandardCharsets.UTF_8);
        assertThat(png).exists();
        assertThat(Files.size(png)).as("a screenshot with something on it").isGreaterThan(20_000);
        return dom;
    }

    /** Chromium headless with no network and a profile of its own in target/, so nothing of the user's is read. */
    private static byte[] run(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--user-data-dir=" + OUT.resolve("profile").toAbsolutePath()));
        command.addAll(args);
        Path log = OUT.resolve("chromium.log");
        Process browser = new ProcessBuilder(command).redirectError(log.toFile()).start();
        browser.getOutputStream().close();
        byte[] out = browser.getInputStream().readAllBytes();
        assertThat(browser.waitFor(60, TimeUnit.SECONDS)).as("chromium ended").isTrue();
        assertThat(browser.exitValue()).as(Files.readString(log)).isZero();
        return out;
    }

    /** The share of pixels within a few steps of {@code rgb}. */
    private static double share(BufferedImage image, int rgb) {
        long near = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int p = image.getRGB(x, y);
                if (Math.abs(((p >> 16) & 0xff) - ((rgb >> 16) & 0xff)) <= 6 && Math.abs(((p >> 8) & 0xff)
                        - ((rgb >> 8) & 0xff)) <= 6 && Math.abs((p & 0xff) - (rgb & 0xff)) <= 6) {
                    near++;
                }
            }
        }
        return (double) near / ((long) image.getWidth() * image.getHeight());
    }

    private static int distinctColours(BufferedImage image) {
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                colours.add(image.getRGB(x, y) & 0xffffff);
            }
        }
        return colours.size();
    }
}
