// Stands in for pdffigures2's batch CLI in tests: same arguments, same output file name.
// Copies the JSON named by $FAKE_PDFFIGURES2_JSON to <data-prefix><pdf name>.json.
import java.nio.file.*;

public class FakePdffigures2 {
    public static void main(String[] args) throws Exception {
        String data = null, pdf = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-d")) data = args[++i];
            else if (args[i].equals("-m")) i++;
            else pdf = args[i];
        }
        if (System.getenv("FAKE_PDFFIGURES2_FAIL") != null) {
            System.err.println("java.io.IOException: Error: End-of-File, expected line");
            System.exit(1);
        }
        String name = Paths.get(pdf).getFileName().toString();
        name = name.substring(0, name.lastIndexOf('.'));
        Files.copy(Paths.get(System.getenv("FAKE_PDFFIGURES2_JSON")), Paths.get(data + name + ".json"));
    }
}
