#pragma once
// Messages between the ranks of MPI_COMM_WORLD, never blocking: a send returns at once (its
// text is kept until MPI is done with it) and a poll takes a message only when one is there,
// so that a lost rank can stall nothing but the configs it holds. One thread at a time calls
// MPI through it (a lock; MPI_THREAD_SERIALIZED): rank 0's pulse sends from a thread of its own.
#include <mpi.h>

#include <list>
#include <mutex>
#include <optional>
#include <string>

#include "distributed/rank_messages.h"

namespace tt {

struct RankMessage {
  int source = 0;
  RankTag tag = RankTag::kHeartbeat;
  std::string body;
};

class RankChannel {
 public:
  RankChannel();  // MPI_COMM_WORLD, its errors returned rather than fatal
  int rank() const { return rank_; }
  int size() const { return size_; }

  // False when MPI refused it (a peer already gone).
  bool Send(int destination, RankTag tag, std::string body);
  // One waiting message from `source` (any rank when nullopt), if there is one.
  std::optional<RankMessage> Poll(std::optional<int> source = std::nullopt);

 private:
  struct PendingSend {
    std::string body;
    MPI_Request request;
  };
  void ReapSends();

  int rank_ = 0, size_ = 0;
  std::mutex mutex_;  // held by Send and Poll: every MPI call and sends_
  std::list<PendingSend> sends_;
};

}  // namespace tt
