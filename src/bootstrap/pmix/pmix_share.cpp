// The PMIx plugin (libsymmetra_bootstrap_pmix.so): passes one string from PE 0 to every PE
// through the launcher's PMIx server (Open MPI's mpirun, srun --mpi=pmix), which is how the PEs
// of a job across hosts learn where PE 0 hosts the TCP rendezvous and the job's secret
// (bootstrap/pmix_rendezvous.hpp). A plugin, loaded only by such jobs, so that libpmix and its
// own dependencies stay out of every other process.
//
// Threads: one call per process, from the thread that joins the job.
#include <pmix.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr const char* kKey = "symmetra.rendezvous";

int fail(char* err, std::size_t err_len, const char* step, pmix_status_t rc) {
  std::snprintf(err, err_len, "%s: %s", step, PMIx_Error_string(rc));
  return 1;
}

}  // namespace

// PE 0 (PMIx rank 0) publishes `value`; every PE, PE 0 too, gets it back in `out` (at most
// out_len bytes with the NUL). The fence that publishes it waits at most timeout_s seconds for
// the other PEs. Returns 0, or nonzero with a message in `err`.
extern "C" __attribute__((visibility("default"))) int symmetra_pmix_share(const char* value,
                                                                          char* out,
                                                                          std::size_t out_len,
                                                                          int timeout_s, char* err,
                                                                          std::size_t err_len) {
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) return fail(err, err_len, "PMIx_Init", rc);
  int status = 0;
  if (me.rank == 0) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(value);
    rc = PMIx_Put(PMIX_GLOBAL, kKey, &v);  // copies the value
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) status = fail(err, err_len, "PMIx_Put", rc);
  }
  if (status == 0) {
    pmix_info_t info[2];
    bool collect = true;
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout_s, PMIX_INT);
    rc = PMIx_Fence(nullptr, 0, info, 2);  // every process of this job's namespace
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) status = fail(err, err_len, "PMIx_Fence", rc);
  }
  if (status == 0) {
    pmix_proc_t zero;
    PMIX_PROC_LOAD(&zero, me.nspace, 0);
    pmix_value_t* got = nullptr;
    rc = PMIx_Get(&zero, kKey, nullptr, 0, &got);
    if (rc != PMIX_SUCCESS || got == nullptr || got->type != PMIX_STRING) {
      status = fail(err, err_len, "PMIx_Get of PE 0's rendezvous", rc);
    } else if (std::strlen(got->data.string) + 1 > out_len) {
      std::snprintf(err, err_len, "PE 0's rendezvous is longer than %zu bytes", out_len);
      status = 1;
    } else {
      std::strcpy(out, got->data.string);
    }
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
  }
  PMIx_Finalize(nullptr, 0);
  return status;
}
