package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class ListedCommitsTest {
  private static final Path DIR = new Path("s3a://bucket/t/_delta_log");

  @Test
  void keepsTheLatestEarlierCommitsUpToTheBoundAndDropsWhatANewListingNoLongerShows() {
    DynamoDbLogStore.ListedCommits listed = new DynamoDbLogStore.ListedCommits();
    int n = DynamoDbLogStore.ListedCommits.MAX_EARLIER + 50;
    listed.remember(name(0), commits(0, n + 10));
    // A new listing from n shows only n..n+4: n+5.. are gone (a recreated table).
    listed.remember(name(n), commits(n, n + 5));

    assertNotNull(listed.get(commit(n)));
    assertNotNull(listed.get(commit(n - 1)), "below the listing: kept from the earlier one");
    assertNotNull(listed.get(commit(n - DynamoDbLogStore.ListedCommits.MAX_EARLIER)));
    assertNull(listed.get(commit(n - DynamoDbLogStore.ListedCommits.MAX_EARLIER - 1)), "bound");
    assertNull(listed.get(commit(n + 5)), "not in the new listing, though in the old one");
    assertNull(
        listed.get(new Path("s3a://bucket/other/_delta_log/" + name(n - 1))), "another directory");
  }

  private static List<FileStatus> commits(int from, int to) {
    List<FileStatus> out = new ArrayList<>();
    for (int v = from; v < to; v++) {
      out.add(new FileStatus(10, false, 1, 1, 0, commit(v)));
    }
    return out;
  }

  private static Path commit(int version) {
    return new Path(DIR, name(version));
  }

  private static String name(int version) {
    return DynamoDbLogStore.deltaFileName(version);
  }
}
