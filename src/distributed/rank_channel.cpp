#include "distributed/rank_channel.h"

namespace tt {

RankChannel::RankChannel() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

bool RankChannel::Send(int destination, RankTag tag, std::string body) {
  std::lock_guard lock(mutex_);
  ReapSends();
  auto& send = sends_.emplace_back(PendingSend{std::move(body), MPI_REQUEST_NULL});
  const int rc = MPI_Isend(send.body.data(), static_cast<int>(send.body.size()), MPI_CHAR, destination,
                           static_cast<int>(tag), MPI_COMM_WORLD, &send.request);
  if (rc != MPI_SUCCESS) sends_.pop_back();
  return rc == MPI_SUCCESS;
}

std::optional<RankMessage> RankChannel::Poll(std::optional<int> source) {
  std::lock_guard lock(mutex_);
  ReapSends();
  int waiting = 0;
  MPI_Status status;
  if (MPI_Iprobe(source.value_or(MPI_ANY_SOURCE), MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status) != MPI_SUCCESS ||
      !waiting)
    return std::nullopt;
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  RankMessage message{status.MPI_SOURCE, static_cast<RankTag>(status.MPI_TAG),
                      std::string(static_cast<size_t>(size), '\0')};
  // The message is there (probed): this receive completes without waiting on its sender.
  if (MPI_Recv(message.body.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return std::nullopt;
  return message;
}

// Sends to a lost rank may never complete; they stay here, which costs only their text.
void RankChannel::ReapSends() {
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
      it = sends_.erase(it);
    else
      ++it;
  }
}

}  // namespace tt
