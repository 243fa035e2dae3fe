/* The subset of CANN's ACL runtime (acl_rt.h 1.17, acl_op.h, acl_mdl.h) and HCCL (hccl.h,
 * hccl_types.h, hccl_comm.h) that ge-mlir's runtime calls, with the real C signatures and
 * numbers (see ../../../shared/spec/ge-runtime-acl-notes.md and
 * ge-import-hccl-labels-notes.md). It is the contract between the loader
 * (src/runtime/acl.rs, which binds these names with libloading at run time) and the
 * simulator in this folder, which exports exactly these symbols. The real libascendcl.so /
 * libhccl.so export the same names, so the loader cannot tell the two apart.
 */
#ifndef GE_ACL_SUBSET_H
#define GE_ACL_SUBSET_H
#include <stddef.h>
#include <stdint.h>

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtNotify;
typedef void *aclrtLabel;
typedef void *aclrtLabelList;
typedef void *aclmdlRI;
typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclopAttr aclopAttr;
typedef int aclDataType;  /* FLOAT 0, FLOAT16 1, INT8 2, INT32 3, UINT8 4, INT16 6, UINT16 7,
                             UINT32 8, INT64 9, UINT64 10, DOUBLE 11, BOOL 12, BF16 27 */
typedef int aclFormat;    /* NCHW 0, NHWC 1, ND 2, NC1HWC0 3, FRACTAL_Z 4, FRACTAL_NZ 29 */
typedef int aclrtMemMallocPolicy; /* HUGE_FIRST 0, HUGE_ONLY 1, NORMAL_ONLY 2, P2P 3..5 */
typedef int aclrtMemcpyKind;      /* H2H 0, H2D 1, D2H 2, D2D 3, DEFAULT 4 */
typedef int aclrtRunMode;         /* DEVICE 0, HOST 1 */
typedef int aclrtStreamStatus;    /* COMPLETE 0, NOT_READY 1 */
typedef int aclrtEventRecordedStatus; /* NOT_READY 0, COMPLETE 1 */
typedef int aclrtCondition;       /* EQUAL 0, NOT_EQUAL 1, GREATER 2, GREATER_OR_EQUAL 3, LESS 4, LESS_OR_EQUAL 5 */
typedef int aclrtCompareDataType; /* INT32 0 */

/* Error codes (acl_base_rt.h, rt_error_codes.h). */
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_OP_NOT_FOUND 100024
#define ACL_ERROR_COMPILING_STUB_MODE 100039
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_NO_EVENT_RESOURCE 207007
#define ACL_ERROR_RT_NO_STREAM_RESOURCE 207008
#define ACL_ERROR_RT_NO_NOTIFY_RESOURCE 207009
#define ACL_ERROR_RT_STREAM_TASK_FULL 507002
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047

/* Stream flags: FAST_LAUNCH 0x1, FAST_SYNC 0x2, PERSISTENT 0x4, HUGE 0x8, CPU_SCHEDULE 0x10,
   DEVICE_USE_ONLY 0x20. Event flags: SYNC 0x1, CAPTURE_STREAM_PROGRESS 0x2, TIME_LINE 0x8,
   DEVICE_USE_ONLY 0x10, EXTERNAL 0x20, IPC 0x40. Model bind flags: HEAD 0,
   DEFAULT 0x7FFFFFFF. */

/* Init and device */
aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDeviceCount(uint32_t *count);
aclError aclrtGetRunMode(aclrtRunMode *runMode);
const char *aclGetRecentErrMsg(void);

/* Streams */
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);
aclError aclrtSynchronizeDevice(void);

/* Events */
aclError aclrtCreateEvent(aclrtEvent *event);
aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtGetEventAvailNum(uint32_t *eventCount);

/* Memory */
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMallocHost(void **hostPtr, size_t size);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream);

/* Notifies */
aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
aclError aclrtDestroyNotify(aclrtNotify notify);

/* Labels and stream control (used inside a model runtime instance) */
aclError aclrtCreateLabel(aclrtLabel *label);
aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
aclError aclrtDestroyLabel(aclrtLabel label);
aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList);
aclError aclrtDestroyLabelList(aclrtLabelList labelList);
aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream);
aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream);
aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                           aclrtCompareDataType dataType, aclrtStream trueStream,
                           aclrtStream falseStream, aclrtStream stream);

/* Model runtime instance: tasks issued to bound streams between BuildBegin and BuildEnd are
   recorded, and replayed by each ExecuteAsync. */
aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag);
aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIDestroy(aclmdlRI modelRI);

/* Single op */
aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims, aclFormat format);
void aclDestroyTensorDesc(const aclTensorDesc *desc);
aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
aclopAttr *aclopCreateAttr(void);
void aclopDestroyAttr(const aclopAttr *attr);
aclError aclopSetAttrBool(aclopAttr *attr, const char *attrName, uint8_t attrValue);
aclError aclopSetAttrInt(aclopAttr *attr, const char *attrName, int64_t attrValue);
aclError aclopSetAttrFloat(aclopAttr *attr, const char *attrName, float attrValue);
aclError aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue);
aclError aclopSetAttrDataType(aclopAttr *attr, const char *attrName, aclDataType attrValue);
aclError aclopSetAttrListBool(aclopAttr *attr, const char *attrName, int numValues, const uint8_t *values);
aclError aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues, const int64_t *values);
aclError aclopSetAttrListFloat(aclopAttr *attr, const char *attrName, int numValues, const float *values);
aclError aclopSetAttrListString(aclopAttr *attr, const char *attrName, int numValues, const char **values);
aclError aclopSetModelDir(const char *modelDir);
aclError aclopExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                        aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
                        aclDataBuffer *outputs[], aclopAttr *attr, aclrtStream stream);

/* HCCL (libhccl.so) */
typedef void *HcclComm;
typedef int HcclResult;   /* SUCCESS 0, E_PARA 1, E_PTR 2, E_MEMORY 3, E_INTERNAL 4,
                             E_NOT_SUPPORT 5, E_NOT_FOUND 6, E_UNAVAIL 7, E_TIMEOUT 9 */
typedef int HcclDataType; /* INT8 0, INT16 1, INT32 2, FP16 3, FP32 4, INT64 5, UINT64 6,
                             UINT8 7, UINT16 8, UINT32 9, FP64 10, BFP16 11 */
typedef int HcclReduceOp; /* SUM 0, PROD 1, MAX 2, MIN 3 */
typedef struct { char internal[4108]; } HcclRootInfo;
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm);
HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
HcclResult HcclCommDestroy(HcclComm comm);
HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                         HcclComm comm, aclrtStream stream);
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                         HcclComm comm, aclrtStream stream);
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                             HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* Simulator only (absent from the real libraries; the loader looks them up optionally):
   scheduler settings and the report of the last run. `config` is "key=value;..." with keys
   seed, mode (uniform|delay-stream:N|reverse|max-overlap), jitter, and device parameters. */
aclError geSimConfigure(const char *config);
/* JSON: simulated makespan, per-stream busy time, tasks by kind. Valid until the next call. */
const char *geSimReport(void);
/* Names for the race detector and the trace; CANN's ACL and HCCL calls have no such
   parameters. The node name of the next kernel, device copy or collective issued on
   `stream`. */
aclError geSimSetTaskName(aclrtStream stream, const char *name);
/* The next collective issued on `stream` is input/output pair `part` of a node of GE op
   type `opType` ("HcomAllReduce"; NULL keeps the HCCL call's name): one HCCL call per
   pair of a fused collective node. Without it a report says "send buffer" /
   "receive buffer". */
aclError geSimSetHcclTask(aclrtStream stream, const char *opType, uint32_t part);
#endif
