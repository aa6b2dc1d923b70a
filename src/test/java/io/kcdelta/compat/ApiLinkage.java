package io.kcdelta.compat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * What a compiled plugin links against in the Kafka API, and whether an older Kafka API has it:
 * reads class files with ASM only, so the old API's classes are never loaded into the JVM (whose
 * classpath holds the API the plugin is compiled against).
 *
 * <p>Collected from each main class: its Kafka superclass and interfaces; Kafka types in its field
 * and method descriptors, thrown exceptions, instructions ({@code new}, casts, {@code instanceof},
 * arrays, class literals), catch blocks and stack map frames; every method and field it invokes or
 * accesses on a Kafka type (owner, name, descriptor), in code, method handles and {@code
 * invokedynamic} (including the functional method a lambda implements); members it reaches through
 * its own class that resolve to a Kafka supertype (such as {@code SinkTask.context}). Not
 * collected: generic signatures, annotations and debug information, which the JVM does not link.
 */
final class ApiLinkage {
  static final String KAFKA = "org/apache/kafka/";

  private ApiLinkage() {}

  static boolean isKafka(String internalName) {
    return internalName.startsWith(KAFKA);
  }

  static String dotted(String internalName) {
    return internalName.replace('/', '.');
  }

  // ---------------------------------------------------------------------------------------------
  // References

  enum Kind {
    EXTENDS,
    IMPLEMENTS,
    CLASS,
    METHOD,
    FIELD
  }

  /**
   * One symbolic reference of {@code caller}. {@code opcode} is the instruction (or the handle's
   * equivalent) that makes a member reference, {@code itf} whether it names an interface method.
   */
  record Ref(
      String caller,
      Kind kind,
      String owner,
      String name,
      String descriptor,
      int opcode,
      boolean itf) {
    static Ref type(String caller, Kind kind, String owner) {
      return new Ref(caller, kind, owner, null, null, 0, false);
    }

    boolean isMember() {
      return kind == Kind.METHOD || kind == Kind.FIELD;
    }

    /**
     * {@code owner.name descriptor}, {@code owner}, {@code extends owner} or {@code implements
     * owner}: dotted class names, JVM descriptors.
     */
    String target() {
      return switch (kind) {
        case METHOD, FIELD -> dotted(owner) + "." + name + " " + descriptor;
        case EXTENDS -> "extends " + dotted(owner);
        case IMPLEMENTS -> "implements " + dotted(owner);
        case CLASS -> dotted(owner);
      };
    }

    String line() {
      return dotted(caller) + " → " + target();
    }
  }

  /** A reference the old API cannot link, and why. */
  record Problem(Ref ref, String reason) {
    @Override
    public String toString() {
      return ref.line() + " (" + reason + ")";
    }
  }

  /**
   * A method a main class declares that overrides one of a Kafka supertype in the compile-time API.
   */
  record Overriding(String caller, String kafkaType, String name, String descriptor) {
    @Override
    public String toString() {
      return dotted(caller) + " overrides " + dotted(kafkaType) + "." + name + " " + descriptor;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Class models and where they come from

  /** The parts of a class file that linkage needs. */
  record ClassInfo(
      String name,
      int access,
      String superName,
      List<String> interfaces,
      Map<String, Integer> methods,
      Map<String, Integer> fields) {
    boolean isInterface() {
      return (access & Opcodes.ACC_INTERFACE) != 0;
    }

    static ClassInfo read(byte[] bytes) {
      Map<String, Integer> methods = new HashMap<>();
      Map<String, Integer> fields = new HashMap<>();
      Object[] header = new Object[4];
      new ClassReader(bytes)
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public void visit(
                    int version,
                    int access,
                    String name,
                    String signature,
                    String superName,
                    String[] interfaces) {
                  header[0] = name;
                  header[1] = access;
                  header[2] = superName;
                  header[3] = interfaces == null ? List.of() : List.of(interfaces);
                }

                @Override
                public FieldVisitor visitField(
                    int access, String name, String descriptor, String signature, Object value) {
                  fields.put(name + " " + descriptor, access);
                  return null;
                }

                @Override
                public MethodVisitor visitMethod(
                    int access,
                    String name,
                    String descriptor,
                    String signature,
                    String[] exceptions) {
                  methods.put(name + descriptor, access);
                  return null;
                }
              },
              ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
      @SuppressWarnings("unchecked")
      List<String> interfaces = (List<String>) header[3];
      return new ClassInfo(
          (String) header[0], (Integer) header[1], (String) header[2], interfaces, methods, fields);
    }
  }

  /** Class file bytes by internal name; empty where the class does not exist. */
  interface ClassBytes {
    Optional<byte[]> find(String internalName);
  }

  /** The class files under a directory such as {@code target/classes}. */
  static ClassBytes directory(Path root) {
    return name -> {
      Path file = root.resolve(name + ".class");
      return Files.isRegularFile(file) ? Optional.of(readAll(file)) : Optional.empty();
    };
  }

  /** The class files of some jars, read into memory once (the first jar holding a name wins). */
  static ClassBytes jars(List<Path> jars) {
    Map<String, byte[]> classes = new HashMap<>();
    for (Path jar : jars) {
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        for (ZipEntry e : Collections.list(zip.entries())) {
          String n = e.getName();
          if (n.endsWith(".class") && !n.startsWith("META-INF/")) {
            try (InputStream in = zip.getInputStream(e)) {
              classes.putIfAbsent(
                  n.substring(0, n.length() - ".class".length()), in.readAllBytes());
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + jar, e);
      }
    }
    return name -> Optional.ofNullable(classes.get(name));
  }

  /** The class files a class loader has as resources (JDK classes included); nothing is loaded. */
  static ClassBytes resources(ClassLoader loader) {
    return name -> {
      try (InputStream in = loader.getResourceAsStream(name + ".class")) {
        return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  /** {@code main} first; then Kafka names only from {@code kafka}, all others from {@code rest}. */
  static ClassBytes layered(ClassBytes main, ClassBytes kafka, ClassBytes rest) {
    return name -> {
      Optional<byte[]> own = main.find(name);
      if (own.isPresent()) {
        return own;
      }
      return isKafka(name) ? kafka.find(name) : rest.find(name);
    };
  }

  private static byte[] readAll(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Resolution, after JVMS 5.4.3

  /** A class universe: the classes a JVM with this classpath would link against. */
  static final class Hierarchy {
    private final String label;
    private final ClassBytes bytes;
    private final Map<String, Optional<ClassInfo>> cache = new HashMap<>();

    Hierarchy(String label, ClassBytes bytes) {
      this.label = label;
      this.bytes = bytes;
    }

    String label() {
      return label;
    }

    Optional<ClassInfo> get(String name) {
      return cache.computeIfAbsent(name, n -> bytes.find(n).map(ClassInfo::read));
    }

    /**
     * All supertypes of {@code name} (not itself), superclasses first, then interfaces, breadth
     * first.
     */
    List<String> supertypes(String name) {
      Set<String> seen = new LinkedHashSet<>();
      for (String c = superOf(name); c != null; c = superOf(c)) {
        seen.add(c);
      }
      Deque<String> todo = new ArrayDeque<>();
      todo.add(name);
      todo.addAll(seen);
      Set<String> interfaces = new LinkedHashSet<>();
      while (!todo.isEmpty()) {
        get(todo.poll())
            .ifPresent(ci -> ci.interfaces().stream().filter(interfaces::add).forEach(todo::add));
      }
      seen.addAll(interfaces);
      return new ArrayList<>(seen);
    }

    boolean isSubclass(String sub, String sup) {
      return sub.equals(sup) || supertypes(sub).contains(sup);
    }

    private String superOf(String name) {
      return get(name).map(ClassInfo::superName).orElse(null);
    }

    /**
     * The class declaring the method a reference to {@code owner.name descriptor} resolves to: the
     * owner, its superclasses, then (non-static, non-private) methods of its superinterfaces, then,
     * for an interface, {@code Object}. Constructors are never inherited.
     */
    Optional<String> resolveMethod(String owner, String name, String descriptor) {
      String key = name + descriptor;
      if (name.equals("<init>") || name.equals("<clinit>")) {
        return get(owner).filter(ci -> ci.methods().containsKey(key)).map(ClassInfo::name);
      }
      for (String c = owner; c != null; c = superOf(c)) {
        Optional<ClassInfo> ci = get(c);
        if (ci.isPresent() && ci.get().methods().containsKey(key)) {
          return Optional.of(c);
        }
      }
      for (String i : supertypes(owner)) {
        Optional<ClassInfo> ci = get(i);
        if (ci.isPresent() && ci.get().isInterface()) {
          Integer access = ci.get().methods().get(key);
          if (access != null && (access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0) {
            return Optional.of(i);
          }
        }
      }
      Optional<ClassInfo> object = get("java/lang/Object");
      if (object.isPresent() && object.get().methods().containsKey(key)) {
        return Optional.of("java/lang/Object");
      }
      return Optional.empty();
    }

    /**
     * The class declaring the field: the owner, its superinterfaces, then its superclass,
     * recursively.
     */
    Optional<String> resolveField(String owner, String name, String descriptor) {
      Optional<ClassInfo> ci = get(owner);
      if (ci.isEmpty()) {
        return Optional.empty();
      }
      if (ci.get().fields().containsKey(name + " " + descriptor)) {
        return Optional.of(owner);
      }
      for (String i : ci.get().interfaces()) {
        Optional<String> found = resolveField(i, name, descriptor);
        if (found.isPresent()) {
          return found;
        }
      }
      return ci.get().superName() == null
          ? Optional.empty()
          : resolveField(ci.get().superName(), name, descriptor);
    }

    int methodAccess(String declaring, String name, String descriptor) {
      return get(declaring).orElseThrow().methods().get(name + descriptor);
    }

    int fieldAccess(String declaring, String name, String descriptor) {
      return get(declaring).orElseThrow().fields().get(name + " " + descriptor);
    }

    /** Why this hierarchy cannot link the reference, or empty when it can. */
    Optional<String> problem(Ref ref) {
      String missing = "missing in " + label;
      Optional<ClassInfo> owner = get(ref.owner());
      if (owner.isEmpty()) {
        return Optional.of(
            ref.isMember() ? missing + ": no class " + dotted(ref.owner()) : missing);
      }
      if (!accessible(ref.caller(), owner.get().access(), ref.owner(), false)) {
        return Optional.of("class not public in " + label);
      }
      switch (ref.kind()) {
        case EXTENDS:
          if (owner.get().isInterface()) {
            return Optional.of("an interface in " + label + ": IncompatibleClassChangeError");
          }
          if ((owner.get().access() & Opcodes.ACC_FINAL) != 0) {
            return Optional.of("final in " + label + ": VerifyError");
          }
          return Optional.empty();
        case IMPLEMENTS:
          return owner.get().isInterface()
              ? Optional.empty()
              : Optional.of("not an interface in " + label + ": IncompatibleClassChangeError");
        case CLASS:
          return Optional.empty();
        case METHOD:
          {
            if (ref.opcode() != Opcodes.INVOKESTATIC
                && ref.opcode() != Opcodes.INVOKESPECIAL
                && ref.itf() != owner.get().isInterface()) {
              return Optional.of(
                  (ref.itf() ? "a class" : "an interface")
                      + " in "
                      + label
                      + ": IncompatibleClassChangeError");
            }
            Optional<String> declaring = resolveMethod(ref.owner(), ref.name(), ref.descriptor());
            if (declaring.isEmpty()) {
              return Optional.of(missing);
            }
            int access = methodAccess(declaring.get(), ref.name(), ref.descriptor());
            return memberProblem(
                ref, declaring.get(), access, ref.opcode() == Opcodes.INVOKESTATIC);
          }
        case FIELD:
          {
            Optional<String> declaring = resolveField(ref.owner(), ref.name(), ref.descriptor());
            if (declaring.isEmpty()) {
              return Optional.of(missing);
            }
            int access = fieldAccess(declaring.get(), ref.name(), ref.descriptor());
            return memberProblem(
                ref,
                declaring.get(),
                access,
                ref.opcode() == Opcodes.GETSTATIC || ref.opcode() == Opcodes.PUTSTATIC);
          }
        default:
          throw new AssertionError(ref.kind());
      }
    }

    private Optional<String> memberProblem(
        Ref ref, String declaring, int access, boolean wantStatic) {
      if (ref.opcode() != 0 && ((access & Opcodes.ACC_STATIC) != 0) != wantStatic) {
        return Optional.of(
            (wantStatic ? "not static" : "static")
                + " in "
                + label
                + ": IncompatibleClassChangeError");
      }
      if (!accessible(ref.caller(), access, declaring, true)) {
        return Optional.of(
            "not accessible in "
                + label
                + " (declared in "
                + dotted(declaring)
                + "): IllegalAccessError");
      }
      return Optional.empty();
    }

    private boolean accessible(String caller, int access, String declaring, boolean member) {
      if ((access & Opcodes.ACC_PUBLIC) != 0 || caller.equals(declaring)) {
        return true;
      }
      if ((access & Opcodes.ACC_PRIVATE) != 0) {
        return false;
      }
      if (packageOf(caller).equals(packageOf(declaring))) {
        return true;
      }
      return member && (access & Opcodes.ACC_PROTECTED) != 0 && isSubclass(caller, declaring);
    }

    private static String packageOf(String internalName) {
      int slash = internalName.lastIndexOf('/');
      return slash < 0 ? "" : internalName.substring(0, slash);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Scanning

  /** Everything one scan of the main classes found. */
  record Scan(
      List<String> classes,
      Set<Ref> references,
      List<Problem> problems,
      List<Overriding> overrides,
      List<Overriding> overridesMissingInOld) {}

  /**
   * Scans every class file under {@code mainClasses}: collects the Kafka references and resolves
   * them in {@code old}; {@code compiled} is the API the classes were compiled against (to tell
   * which members of the main classes override or inherit Kafka ones).
   */
  static Scan scan(Path mainClasses, Hierarchy compiled, Hierarchy old) {
    List<String> classes;
    try (Stream<Path> files = Files.walk(mainClasses)) {
      classes =
          files
              .filter(p -> p.toString().endsWith(".class"))
              .map(p -> mainClasses.relativize(p).toString().replace('\\', '/'))
              .map(s -> s.substring(0, s.length() - ".class".length()))
              .filter(s -> !s.endsWith("module-info") && !s.endsWith("package-info"))
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> mainNames = new HashSet<>(classes);
    Set<Ref> refs = new LinkedHashSet<>();
    List<Ref> throughMain = new ArrayList<>();
    List<Overriding> overrides = new ArrayList<>();
    for (String c : classes) {
      byte[] bytes = readAll(mainClasses.resolve(c + ".class"));
      new ClassReader(bytes).accept(new Collector(refs, throughMain), 0);
      overrides.addAll(overrides(c, compiled));
    }
    // Members named through a main class (this.context, a static constant of a Kafka interface a
    // main
    // class implements) that the compile-time API resolves in a Kafka type are Kafka references
    // too.
    for (Ref r : throughMain) {
      if (mainNames.contains(r.owner())) {
        Optional<String> declaring =
            r.kind() == Kind.METHOD
                ? compiled.resolveMethod(r.owner(), r.name(), r.descriptor())
                : compiled.resolveField(r.owner(), r.name(), r.descriptor());
        if (declaring.isEmpty() || isKafka(declaring.get())) {
          refs.add(r);
        }
      }
    }
    List<Problem> problems = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    for (Ref r : refs) {
      old.problem(r)
          .ifPresent(
              why -> {
                if (seen.add(r.line() + why)) {
                  problems.add(new Problem(r, why));
                }
              });
    }
    for (String c : classes) {
      problems.addAll(unimplementedAbstractMethods(c, old));
    }
    List<Overriding> missingInOld =
        overrides.stream()
            .filter(
                o ->
                    old.supertypes(o.caller()).stream()
                        .filter(ApiLinkage::isKafka)
                        .noneMatch(
                            t ->
                                old.get(t)
                                    .map(ci -> ci.methods().containsKey(o.name() + o.descriptor()))
                                    .orElse(false)))
            .toList();
    return new Scan(classes, refs, problems, overrides, missingInOld);
  }

  /**
   * Methods of {@code c} that a Kafka supertype declares (non-static, non-private) in {@code
   * compiled}.
   */
  private static List<Overriding> overrides(String c, Hierarchy compiled) {
    ClassInfo ci = compiled.get(c).orElseThrow();
    List<String> kafkaSupertypes =
        compiled.supertypes(c).stream().filter(ApiLinkage::isKafka).toList();
    List<Overriding> found = new ArrayList<>();
    if (kafkaSupertypes.isEmpty()) {
      return found;
    }
    ci.methods()
        .forEach(
            (key, access) -> {
              if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0
                  || key.startsWith("<")) {
                return;
              }
              for (String t : kafkaSupertypes) {
                Integer a = compiled.get(t).map(ti -> ti.methods().get(key)).orElse(null);
                if (a != null && (a & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0) {
                  int paren = key.indexOf('(');
                  found.add(new Overriding(c, t, key.substring(0, paren), key.substring(paren)));
                  return;
                }
              }
            });
    found.sort((a, b) -> a.toString().compareTo(b.toString()));
    return found;
  }

  /**
   * A concrete main class must implement every method a Kafka supertype of the old API declares
   * abstract (else the old worker's call ends in AbstractMethodError), directly, through a
   * superclass or as a default method.
   */
  private static List<Problem> unimplementedAbstractMethods(String c, Hierarchy old) {
    ClassInfo ci = old.get(c).orElseThrow();
    List<Problem> problems = new ArrayList<>();
    if ((ci.access() & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_INTERFACE)) != 0) {
      return problems;
    }
    List<String> supertypes = old.supertypes(c);
    Set<String> checked = new HashSet<>();
    for (String t : supertypes) {
      if (!isKafka(t)) {
        continue;
      }
      old.get(t)
          .ifPresent(
              ti ->
                  ti.methods()
                      .forEach(
                          (key, access) -> {
                            if ((access & Opcodes.ACC_ABSTRACT) == 0
                                || !checked.add(key)
                                || implemented(c, key, supertypes, old)) {
                              return;
                            }
                            int paren = key.indexOf('(');
                            Ref ref =
                                new Ref(
                                    c,
                                    Kind.METHOD,
                                    t,
                                    key.substring(0, paren),
                                    key.substring(paren),
                                    0,
                                    ti.isInterface());
                            problems.add(
                                new Problem(
                                    ref,
                                    "abstract in "
                                        + old.label()
                                        + " and not implemented: AbstractMethodError"));
                          }));
    }
    return problems;
  }

  private static boolean implemented(String c, String key, List<String> supertypes, Hierarchy old) {
    for (String k = c; k != null; k = old.get(k).map(ClassInfo::superName).orElse(null)) {
      Integer a = old.get(k).map(ki -> ki.methods().get(key)).orElse(null);
      if (a != null && (a & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_STATIC)) == 0) {
        return true;
      }
    }
    for (String t : supertypes) {
      Optional<ClassInfo> ti = old.get(t);
      if (ti.isPresent() && ti.get().isInterface()) {
        Integer a = ti.get().methods().get(key);
        if (a != null
            && (a & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Collects the references of one class file. */
  private static final class Collector extends ClassVisitor {
    private final Set<Ref> refs;
    private final List<Ref> throughOwnClasses;
    private String caller;

    Collector(Set<Ref> refs, List<Ref> throughOwnClasses) {
      super(Opcodes.ASM9);
      this.refs = refs;
      this.throughOwnClasses = throughOwnClasses;
    }

    @Override
    public void visit(
        int version,
        int access,
        String name,
        String signature,
        String superName,
        String[] interfaces) {
      caller = name;
      if (superName != null && isKafka(superName)) {
        refs.add(Ref.type(caller, Kind.EXTENDS, superName));
      }
      if (interfaces != null) {
        for (String i : interfaces) {
          if (isKafka(i)) {
            refs.add(Ref.type(caller, Kind.IMPLEMENTS, i));
          }
        }
      }
    }

    @Override
    public FieldVisitor visitField(
        int access, String name, String descriptor, String signature, Object value) {
      types(Type.getType(descriptor));
      return null;
    }

    @Override
    public MethodVisitor visitMethod(
        int access, String name, String descriptor, String signature, String[] exceptions) {
      types(Type.getMethodType(descriptor));
      if (exceptions != null) {
        for (String e : exceptions) {
          className(e);
        }
      }
      return new MethodVisitor(Opcodes.ASM9) {
        @Override
        public void visitTypeInsn(int opcode, String type) {
          className(type);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
          member(Kind.FIELD, owner, name, descriptor, opcode, false);
        }

        @Override
        public void visitMethodInsn(
            int opcode, String owner, String name, String descriptor, boolean isInterface) {
          member(Kind.METHOD, owner, name, descriptor, opcode, isInterface);
        }

        @Override
        public void visitInvokeDynamicInsn(
            String name, String descriptor, Handle bsm, Object... args) {
          types(Type.getMethodType(descriptor));
          handle(bsm);
          for (Object a : args) {
            constant(a);
          }
          // A lambda or method reference: the worker calls the functional interface's method by
          // name.
          Type produced = Type.getReturnType(descriptor);
          if (bsm.getOwner().equals("java/lang/invoke/LambdaMetafactory")
              && args.length > 0
              && args[0] instanceof Type sam
              && produced.getSort() == Type.OBJECT) {
            member(
                Kind.METHOD,
                produced.getInternalName(),
                name,
                sam.getDescriptor(),
                Opcodes.INVOKEINTERFACE,
                true);
          }
        }

        @Override
        public void visitLdcInsn(Object value) {
          constant(value);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
          types(Type.getType(descriptor));
        }

        @Override
        public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
          if (type != null) {
            className(type);
          }
        }

        @Override
        public void visitFrame(
            int type, int numLocal, Object[] local, int numStack, Object[] stack) {
          frameTypes(local, numLocal);
          frameTypes(stack, numStack);
        }
      };
    }

    private void frameTypes(Object[] entries, int n) {
      if (entries != null) {
        for (int i = 0; i < n && i < entries.length; i++) {
          if (entries[i] instanceof String s) {
            className(s);
          }
        }
      }
    }

    private void member(
        Kind kind, String owner, String name, String descriptor, int opcode, boolean itf) {
      types(kind == Kind.FIELD ? Type.getType(descriptor) : Type.getMethodType(descriptor));
      if (owner.startsWith("[")) {
        types(Type.getType(owner)); // clone() of an array
        return;
      }
      Ref ref = new Ref(caller, kind, owner, name, descriptor, opcode, itf);
      if (isKafka(owner)) {
        refs.add(Ref.type(caller, Kind.CLASS, owner));
        refs.add(ref);
      } else {
        throughOwnClasses.add(ref);
      }
    }

    private void handle(Handle h) {
      int tag = h.getTag();
      boolean field = tag <= Opcodes.H_PUTSTATIC;
      int opcode =
          switch (tag) {
            case Opcodes.H_GETFIELD -> Opcodes.GETFIELD;
            case Opcodes.H_GETSTATIC -> Opcodes.GETSTATIC;
            case Opcodes.H_PUTFIELD -> Opcodes.PUTFIELD;
            case Opcodes.H_PUTSTATIC -> Opcodes.PUTSTATIC;
            case Opcodes.H_INVOKEVIRTUAL -> Opcodes.INVOKEVIRTUAL;
            case Opcodes.H_INVOKESTATIC -> Opcodes.INVOKESTATIC;
            case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
            default -> Opcodes.INVOKESPECIAL; // H_INVOKESPECIAL, H_NEWINVOKESPECIAL
          };
      member(
          field ? Kind.FIELD : Kind.METHOD,
          h.getOwner(),
          h.getName(),
          h.getDesc(),
          opcode,
          h.isInterface());
    }

    private void constant(Object c) {
      if (c instanceof Type t) {
        types(t);
      } else if (c instanceof Handle h) {
        handle(h);
      } else if (c instanceof ConstantDynamic d) {
        types(Type.getType(d.getDescriptor()));
        handle(d.getBootstrapMethod());
        for (int i = 0; i < d.getBootstrapMethodArgumentCount(); i++) {
          constant(d.getBootstrapMethodArgument(i));
        }
      }
    }

    private void className(String internalNameOrArray) {
      types(
          internalNameOrArray.startsWith("[")
              ? Type.getType(internalNameOrArray)
              : Type.getObjectType(internalNameOrArray));
    }

    private void types(Type t) {
      switch (t.getSort()) {
        case Type.ARRAY -> types(t.getElementType());
        case Type.OBJECT -> {
          if (isKafka(t.getInternalName())) {
            refs.add(Ref.type(caller, Kind.CLASS, t.getInternalName()));
          }
        }
        case Type.METHOD -> {
          for (Type a : t.getArgumentTypes()) {
            types(a);
          }
          types(t.getReturnType());
        }
        default -> {}
      }
    }
  }
}
