package io.kcdelta.logstore;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta {@code LogStore} for {@code file://} tables whose "create N.json only if absent" is atomic
 * for every writer of the machine (the tasks of a connector, other workers, other connectors): the
 * commit is written to a temp file, which is then hard-linked to its name. The kernel refuses the
 * link when the name exists, so exactly one writer gets each version and the others get {@link
 * FileAlreadyExistsException}, on which the connector's commit is planned again on the winner's.
 *
 * <p>Why not Delta's default for {@code file://} ({@code HDFSLogStore}): it checks that N.json is
 * absent and then renames its temp file onto it. A local rename replaces an existing file, so two
 * writers that pass the check together both "win" version N and the second overwrites the first's
 * commit, rows and txn offsets included. Delta's {@code LocalLogStore} closes that gap only among
 * the writers of one store instance, and every table log (and every Kernel call) makes its own.
 * Seen: the group bench with group commit off (64 tasks, each its own DeltaLog) read a commit file
 * whose checksum file belonged to another writer's version of it.
 *
 * <p>Enabled for {@code delta.log.store=filesystem} through {@value #LOG_STORE_FILE_IMPL}. Writers
 * that use another store on the same table (Spark's default) do not exclude each other with it.
 */
public class LocalFileLogStore extends HadoopFileSystemLogStore {
  /** The Hadoop key Delta writers pick the LogStore of {@code file://} paths from. */
  public static final String LOG_STORE_FILE_IMPL = "delta.logStore.file.impl";

  private static final String TEMP_DIR = ".tmp";

  /** The constructor Delta's writers and Kernel call reflectively. */
  public LocalFileLogStore(Configuration hadoopConf) {
    super(hadoopConf);
  }

  @Override
  public void write(
      Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
      throws IOException {
    java.nio.file.Path target = localPath(path, hadoopConf);
    java.nio.file.Path logDir = target.getParent();
    if (!Files.isDirectory(logDir)) {
      throw new FileNotFoundException("No such directory: " + logDir);
    }
    java.nio.file.Path tempDir = Files.createDirectories(logDir.resolve(TEMP_DIR));
    java.nio.file.Path temp = tempDir.resolve(target.getFileName() + "." + UUID.randomUUID());
    try {
      writeDurably(temp, actions);
      if (overwrite) {
        // _last_checkpoint: the last writer wins by design; readers see the old or the new file.
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        // A checksum file another writer's Hadoop file system left would no longer match it.
        Files.deleteIfExists(logDir.resolve("." + target.getFileName() + ".crc"));
      } else {
        link(target, temp);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** The rename or link below is whole; what it points to must be on disk before it. */
  private static void writeDurably(java.nio.file.Path file, Iterator<String> actions)
      throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      OutputStream out = Channels.newOutputStream(channel);
      while (actions.hasNext()) {
        out.write((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
      }
      out.flush();
      channel.force(true);
    }
  }

  private static void link(java.nio.file.Path target, java.nio.file.Path temp) throws IOException {
    try {
      Files.createLink(target, temp);
    } catch (FileAlreadyExistsException e) {
      throw e;
    } catch (UnsupportedOperationException | FileSystemException e) {
      throw new IOException(
          "Could not commit "
              + target
              + ": the filesystem log store commits by hard-linking a temp file to the commit's "
              + "name, so that two writers never both get a version, and this file system refused "
              + "the link. Put the table on a local or NFS file system that has hard links, or on "
              + "S3 with delta.log.store=dynamodb.",
          e);
    }
  }

  private static java.nio.file.Path localPath(Path path, Configuration hadoopConf)
      throws IOException {
    Path qualified = path.getFileSystem(hadoopConf).makeQualified(path);
    if (!"file".equals(qualified.toUri().getScheme())) {
      throw new IOException(
          LocalFileLogStore.class.getSimpleName() + " writes file:// tables only, not " + path);
    }
    return java.nio.file.Path.of(qualified.toUri());
  }

  /**
   * True: a local file is visible while it is written. Kernel asks this before it writes a
   * checkpoint, and on true writes it to a temp file and renames it; on false it writes the
   * checkpoint in place, and a reader in another process that lists the log meanwhile reads a
   * half-written checkpoint ("is not a Parquet file"), as a foreign reader in CompactionIT did.
   */
  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
    return true;
  }
}
