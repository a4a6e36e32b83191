"""The Java side of the PlantUML engine: a small driver run by ``java`` in source-file mode
beside Debian's ``plantuml.jar``.

Why not ``plantuml -pipe``: the command line of 1.2020.2 has no switch for PlantUML's own
lock-down, and its ``-pipe`` output tells neither which diagram of a batch failed nor what
kind each one is.  The driver sets ``OptionFlags.ALLOW_INCLUDE = false`` (PlantUML's own
safe mode, the one its servlet uses: ``!include`` of a file outside the include path is
refused, ``%getenv`` answers empty), then draws each diagram of a batch in the same JVM
(its start is most of a diagram's cost) with PlantUML's API and prints, per diagram, a
start mark (the sandbox's per-step budget counts from it: an endless diagram is killed
alone) and a JSON line: PlantUML's own diagram type (``UmlDiagramType`` or the class of a
non-UML diagram), its error with the line, and the number of images.  The SVG is written
to ``out/<k>.svg``, and PlantUML's own model of the diagram — the entities, groups and
links of a class, component, use-case, state or (legacy) activity diagram; a sequence
diagram's participants and messages in order — to ``out/<k>.json``: the structure graph
is read from what PlantUML parsed, not guessed back from its drawing.
"""

from __future__ import annotations

START = "@@DF-START "
DONE = "@@DF-DONE "

SOURCE = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import net.sourceforge.plantuml.*;
import net.sourceforge.plantuml.core.Diagram;
import net.sourceforge.plantuml.cucadiagram.*;
import net.sourceforge.plantuml.error.PSystemError;
import net.sourceforge.plantuml.sequencediagram.*;

public class DfPlantUML {
    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String text(Display d) {
        if (d == null || Display.isNull(d)) return "";
        StringBuilder b = new StringBuilder();
        for (CharSequence line : d) {
            if (b.length() > 0) b.append('\n');
            b.append(line);
        }
        return b.toString();
    }

    static IGroup root;

    static String shown(net.sourceforge.plantuml.cucadiagram.DisplayPositionned p) {
        return p == null || p.isNull() ? "" : text(p.getDisplay());
    }

    // a class-like box's member rows as drawn: fields then methods, each shown only when
    // the diagram does not hide that portion (``hide members``, ``hide methods``…); the
    // visibility is an icon, not text
    static String members(CucaDiagram c, ILeaf l) {
        StringBuilder b = new StringBuilder("[");
        String sep = "";
        try {
            Bodier body = l.getBodier();
            if (body == null) return "[]";
            List<Member> all = new ArrayList<>();
            if (c.showPortion(EntityPortion.FIELD, l)) all.addAll(body.getFieldsToDisplay());
            if (c.showPortion(EntityPortion.METHOD, l)) all.addAll(body.getMethodsToDisplay());
            for (Member m : all) {
                b.append(sep).append(q(m.getDisplay(false)));
                sep = ", ";
            }
        } catch (RuntimeException e) {
            return "[]";
        }
        return b.append("]").toString();
    }

    static String group(IEntity e) {
        IGroup g = e.getParentContainer();
        return g == null || g == root ? null : g.getCodeGetName();
    }

    static final String[] FIELDS = {"all", "label", "thens", "elseBranch", "repeatList",
        "test", "yes", "out", "backward", "forks", "splits", "branches", "labelTest",
        "labelPositive", "list", "name", "killed", "specialOut", "notes"};

    static Object field(Object o, String name) {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                continue;
            } catch (IllegalAccessException e) {
                return null;
            }
        }
        return null;
    }

    // the activity diagram's instruction tree (PlantUML keeps it in private fields: read
    // by reflection, the class path's jar being an unnamed module)
    static void tree(Object o, StringBuilder b, int depth) {
        if (o == null || depth > 200) {
            b.append("null");
        } else if (o instanceof Display) {
            b.append(q(text((Display) o)));
        } else if (o instanceof String || o instanceof Boolean) {
            b.append(o instanceof String ? q((String) o) : o.toString());
        } else if (o instanceof net.sourceforge.plantuml.activitydiagram3.PositionedNote) {
            b.append("{\"type\": \"PositionedNote\", \"display\": ").append(q(text(
                ((net.sourceforge.plantuml.activitydiagram3.PositionedNote) o).getDisplay())))
             .append("}");
        } else if (o instanceof Collection) {
            b.append("[");
            String sep = "";
            for (Object x : (Collection<?>) o) {
                b.append(sep);
                tree(x, b, depth + 1);
                sep = ", ";
            }
            b.append("]");
        } else {
            b.append("{\"type\": ").append(q(o.getClass().getSimpleName()));
            for (String name : FIELDS) {
                Object v = field(o, name);
                if (v == null) continue;
                b.append(", ").append(q(name)).append(": ");
                tree(v, b, depth + 1);
            }
            b.append("}");
        }
    }

    // PlantUML's own model of the diagram as parsed, read before drawing (drawing a
    // composite state folds its inner states into an image)
    static String model(Diagram d) {
        StringBuilder b = new StringBuilder("{");
        if (d instanceof TitledDiagram) {  // the texts PlantUML draws around the diagram
            TitledDiagram t = (TitledDiagram) d;
            b.append("\"title\": ").append(q(shown(t.getTitle())))
             .append(", \"caption\": ").append(q(shown(t.getCaption())))
             .append(", \"legend\": ").append(q(shown(t.getLegend()))).append(", ");
        }
        if (d instanceof CucaDiagram) {
            CucaDiagram c = (CucaDiagram) d;
            root = c.getRootGroup();
            b.append("\"nodes\": [");
            String sep = "";
            for (ILeaf l : c.getLeafsvalues()) {
                if (l.isRemoved()) continue;
                b.append(sep).append("{\"id\": ").append(q(l.getCodeGetName()))
                 .append(", \"text\": ").append(q(text(l.getDisplay())))
                 .append(", \"leaf\": ").append(q(String.valueOf(l.getLeafType())))
                 .append(", \"symbol\": ").append(q(l.getUSymbol() == null ? null
                     : l.getUSymbol().getClass().getSimpleName()))
                 .append(", \"group\": ").append(q(group(l)))
                 .append(", \"members\": ").append(members(c, l))
                 .append(", \"hidden\": ").append(l.isHidden()).append("}");
                sep = ", ";
            }
            b.append("], \"groups\": [");
            sep = "";
            for (IGroup g : c.getGroups(false)) {
                if (g.isRemoved() || g == root) continue;
                b.append(sep).append("{\"id\": ").append(q(g.getCodeGetName()))
                 .append(", \"text\": ").append(q(text(g.getDisplay())))
                 .append(", \"type\": ").append(q(String.valueOf(g.getGroupType())))
                 .append(", \"group\": ").append(q(group(g))).append("}");
                sep = ", ";
            }
            b.append("], \"links\": [");
            sep = "";
            for (Link k : c.getLinks()) {
                LinkType t = k.getType();
                b.append(sep).append("{\"a\": ").append(q(k.getEntity1().getCodeGetName()))
                 .append(", \"b\": ").append(q(k.getEntity2().getCodeGetName()))
                 .append(", \"label\": ").append(q(text(k.getLabel())))
                 .append(", \"q1\": ").append(q(k.getQualifier1()))
                 .append(", \"q2\": ").append(q(k.getQualifier2()))
                 .append(", \"d1\": ").append(q(String.valueOf(t.getDecor1())))
                 .append(", \"d2\": ").append(q(String.valueOf(t.getDecor2())))
                 .append(", \"style\": ").append(q(String.valueOf(t.getStyle())))
                 .append(", \"invis\": ").append(k.isInvis() || k.isHidden() || t.isInvisible())
                 .append(", \"inverted\": ").append(k.isInverted()).append("}");
                sep = ", ";
            }
            b.append("]");
        } else if (d instanceof net.sourceforge.plantuml.activitydiagram3.ActivityDiagram3) {
            Object lanes = field(d, "swinlanes");
            b.append("\"activity\": ");
            tree(lanes == null ? null : field(lanes, "root"), b, 0);
        } else if (d instanceof SequenceDiagram) {
            SequenceDiagram s = (SequenceDiagram) d;
            b.append("\"participants\": [");
            String sep = "";
            for (Participant p : s.participants()) {
                b.append(sep).append("{\"id\": ").append(q(p.getCode()))
                 .append(", \"text\": ").append(q(text(p.getDisplay(false))))
                 .append(", \"type\": ").append(q(String.valueOf(p.getType()))).append("}");
                sep = ", ";
            }
            b.append("], \"messages\": [");
            sep = "";
            for (Event e : s.events()) {
                if (!(e instanceof Message)) continue;
                Message m = (Message) e;
                net.sourceforge.plantuml.skin.ArrowConfiguration a = m.getArrowConfiguration();
                b.append(sep).append("{\"a\": ").append(q(m.getParticipant1().getCode()))
                 .append(", \"b\": ").append(q(m.getParticipant2().getCode()))
                 .append(", \"label\": ").append(q(text(m.getLabel())))
                 .append(", \"h1\": ").append(q(String.valueOf(a.getDressing1().getHead())))
                 .append(", \"h2\": ").append(q(String.valueOf(a.getDressing2().getHead())))
                 .append(", \"dir\": ").append(q(String.valueOf(a.getArrowDirection())))
                 .append(", \"dotted\": ").append(a.isDotted())
                 .append(", \"hidden\": ").append(a.isHidden()).append("}");
                sep = ", ";
            }
            b.append("]");
        }
        return b.append("}").toString();
    }

    /** PlantUML numbers some entities (a concurrent state's regions, CONC<n>) with a
     *  counter global to the JVM, so a diagram drawn after others got other ids and another
     *  SVG than drawn alone: the counter is set back before each diagram, to where it stood
     *  when the JVM had drawn nothing, and a drawing depends on its own code only. */
    static java.util.concurrent.atomic.AtomicInteger sequence() {
        try {
            java.lang.reflect.Field f = net.sourceforge.plantuml.utils.UniqueSequence.class
                .getDeclaredField("cpt");
            f.setAccessible(true);
            return (java.util.concurrent.atomic.AtomicInteger) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    public static void main(String[] args) throws Exception {
        OptionFlags.ALLOW_INCLUDE = false;  // PlantUML's own safe mode (its servlet's)
        java.util.concurrent.atomic.AtomicInteger seq = sequence();
        int fresh = seq == null ? 0 : seq.get();
        Path dir = Paths.get(args[0]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                                          "UTF-8");
        List<String> names = Files.readAllLines(dir.resolve("list.txt"));
        for (String name : names) {
            if (name.isEmpty()) continue;
            if (seq != null) seq.set(fresh);
            out.println("@@DF-START " + name);
            String type = null, error = null;
            int images = 0, line = -1;
            try {
                String text = new String(Files.readAllBytes(dir.resolve("in/" + name + ".puml")),
                                         StandardCharsets.UTF_8);
                List<BlockUml> blocks = new SourceStringReader(text).getBlocks();
                if (blocks.isEmpty()) {
                    error = "no @startuml block";
                } else {
                    Diagram d = blocks.get(0).getDiagram();
                    images = d.getNbImages();
                    if (d instanceof PSystemError) {
                        PSystemError e = (PSystemError) d;
                        error = e.getWarningOrError();
                        for (ErrorUml u : e.getErrorsUml()) {
                            error = u.getError();
                            line = u.getLineLocation() == null ? -1
                                : u.getLineLocation().getPosition();
                        }
                    } else {
                        type = d instanceof UmlDiagram
                            ? ((UmlDiagram) d).getUmlDiagramType().name()
                            : d.getClass().getSimpleName();
                        String m;
                        try {
                            m = model(d);
                        } catch (Throwable t) {
                            m = "{\"error\": " + q(String.valueOf(t)) + "}";
                        }
                        Files.write(dir.resolve("out/" + name + ".json"),
                                    m.getBytes(StandardCharsets.UTF_8));
                        try (OutputStream os = new BufferedOutputStream(new FileOutputStream(
                                dir.resolve("out/" + name + ".svg").toFile()))) {
                            d.exportDiagram(os, 0, new FileFormatOption(FileFormat.SVG));
                        }
                    }
                }
            } catch (Throwable t) {
                error = "engine: " + t;
            }
            out.println("@@DF-DONE {\"name\": " + q(name) + ", \"type\": " + q(type)
                        + ", \"error\": " + q(error) + ", \"line\": " + line
                        + ", \"images\": " + images + "}");
        }
        out.flush();
        System.exit(0);
    }
}
"""
