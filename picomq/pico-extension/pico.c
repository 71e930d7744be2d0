/*-------------------------------------------------------------------------
 *
 * pico.c
 *		PicoMQ inside Postgres: a background worker that runs a PicoMQ node
 *		(the same node as `pico serve`) in a JVM embedded through JNI.
 *
 * Install:  make && make install   (PGXS; JAVA_HOME names the JDK to build
 *           against and the default pico.java_home; PICO_JAR the jar to
 *           install, default ../pico-cli/target/pico.jar)
 * Enable:   shared_preload_libraries = 'pico' and pico.storage = '...' in
 *           postgresql.conf, then restart Postgres.
 *
 * Lifecycle.  _PG_init registers one worker that starts after startup
 * recovery (BgWorkerStart_RecoveryFinished), so never on a standby and at
 * promotion; it restarts 5 s after it exits with status 1 (a failed start).
 * Without pico.storage it logs that it is not starting and exits 0, which
 * unregisters it.  On SIGTERM (fast shutdown, pg_terminate_backend) it asks
 * the node to stop: the listeners close, the engine gets 2 s, and the worker
 * exits after at most 3 s whatever the JVM does.  SIGKILL is a crash to the
 * postmaster, as for any process attached to shared memory: it restarts all
 * backends, then this worker.
 *
 * Threads.  Postgres is not thread-safe, so only the worker's main thread
 * calls Postgres (elog, latches, GUCs).  All JNI happens on one pthread of
 * our own ("the JVM thread"), created with every asynchronous signal blocked:
 * every thread the JVM makes inherits that mask, so SIGTERM, SIGQUIT, SIGHUP,
 * SIGINT, SIGUSR1 and SIGALRM reach the main thread only, where Postgres's
 * handlers expect them.  -Xrs keeps the JVM from installing handlers for
 * SIGTERM/SIGINT/SIGHUP/SIGQUIT; it still installs its synchronous ones
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGPIPE, SIGXFSZ) and SIGUSR2 for thread
 * suspension, which a worker without a database connection does not use.
 * -XX:+DisableAttachMechanism matters too: `jcmd PID` would send SIGQUIT,
 * which Postgres's handler turns into an immediate exit and the postmaster
 * into a crash restart.
 *
 * Logs.  JVM threads never call elog.  Everything the node writes (its
 * slf4j lines, System.out/err, the JVM's own messages through the vfprintf
 * hook) goes into a pipe; the main thread waits on the pipe next to its latch
 * and logs each line with a "pico: " prefix.  Lines starting with \001 are
 * events from the JVM thread (started, failed, stopped, exit).
 *
 * Copyright PicoMQ authors.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jni.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

PG_MODULE_MAGIC;

void		_PG_init(void);
PGDLLEXPORT void pico_worker_main(Datum main_arg);

#ifndef PICO_DEFAULT_JAVA_HOME
#define PICO_DEFAULT_JAVA_HOME "/usr/lib/jvm/default-java"
#endif

#define PICO_ENTRY_CLASS "io/picomq/cli/extension/PostgresWorker"
#define PICO_RESTART_SECONDS 5
/* What the engine gets on a fast shutdown, and the worker's own margin. */
#define PICO_ENGINE_STOP_MS 2000
#define PICO_STOP_MARGIN_MS 1000
#define PICO_LINE_MAX 8192
#define PICO_EVENT '\001'

/* ---- settings (pico.*); read by the worker when it starts ---- */
static char *pico_storage;
static char *pico_wal;
static char *pico_database;
static char *pico_role;
static char *pico_database_url;
static char *pico_listen;
static char *pico_admin_listen;
static char *pico_advertised_url;
static char *pico_cluster_id;
static char *pico_protocol;
static char *pico_log;
static char *pico_options;
static char *pico_java_home;
static char *pico_jar;
static char *pico_jvm_options;
static int	pico_node_id;
static int	pico_wal_cache_mb;
static int	pico_block_cache_mb;
static int	pico_wal_upload_interval_ms;
static int	pico_threads;

/* ---- state shared by the main thread and the JVM thread ---- */
typedef jint (JNICALL *CreateJavaVM_t) (JavaVM **vm, void **env, void *args);

/* Everything the JVM thread needs, prepared by the main thread before it starts. */
typedef struct JvmPlan
{
	CreateJavaVM_t create;
	JavaVMOption *options;
	int			noptions;
	char	  **settings;		/* "name=value", passed to PostgresWorker.start */
	int			nsettings;
	char		log_path[64];	/* /proc/self/fd/N of the pipe's write end */
} JvmPlan;

static JvmPlan plan;
static int	log_pipe[2] = {-1, -1};

/* stop_requested is guarded by stop_lock; the JVM thread waits on stop_cond. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static bool stop_requested = false;

/* Main thread only. */
static volatile sig_atomic_t got_sigterm = false;
typedef enum NodeState
{
	NODE_STARTING, NODE_RUNNING, NODE_FAILED, NODE_STOPPED, NODE_EXITED
} NodeState;
static NodeState node_state = NODE_STARTING;
static int	line_level = LOG;

static void
define_string(const char *name, const char *desc, char **var, const char *boot)
{
	DefineCustomStringVariable(name, desc, NULL, var, boot, PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
}

static void
define_int(const char *name, const char *desc, int *var, int boot, int min, int max)
{
	DefineCustomIntVariable(name, desc, NULL, var, boot, min, max, PGC_SIGHUP, 0,
							NULL, NULL, NULL);
}

void
_PG_init(void)
{
	BackgroundWorker worker;

	/*
	 * Settings are PGC_SIGHUP: a reload changes them for the worker's next
	 * start (pg_terminate_backend on it restarts it 5 s later), never under a
	 * running node.
	 */
	define_string("pico.storage", "PicoMQ data bucket, e.g. 0@s3://bucket?region=... or -2@file:///var/lib/picomq (required).", &pico_storage, "");
	define_string("pico.wal", "PicoMQ WAL (pico serve --wal); empty: tables in the metadata database.", &pico_wal, "");
	define_string("pico.database", "Database holding the PicoMQ metadata log.", &pico_database, "postgres");
	define_string("pico.role", "Role the node connects as; empty: the operating system user Postgres runs as.", &pico_role, "");
	define_string("pico.database_url", "postgres:// URL of the metadata database; overrides pico.database and pico.role.", &pico_database_url, "");
	define_string("pico.listen", "host:port of the PicoMQ protocol listener.", &pico_listen, "127.0.0.1:4437");
	define_string("pico.admin_listen", "host:port of the PicoMQ admin listener; empty for none.", &pico_admin_listen, "127.0.0.1:9090");
	define_string("pico.advertised_url", "Base URL other nodes redirect clients to; empty: http://{pico.listen}.", &pico_advertised_url, "");
	define_string("pico.cluster_id", "PicoMQ cluster name.", &pico_cluster_id, "picomq");
	define_string("pico.protocol", "Protocol of the listener: pico or ds (Durable Streams).", &pico_protocol, "pico");
	define_string("pico.log", "Lowest level of node log lines: error, warn, info, debug or trace.", &pico_log, "info");
	define_string("pico.options", "More pico serve flags, separated by spaces, e.g. --long-poll-timeout-sec 5.", &pico_options, "");
	define_string("pico.java_home", "JDK (21 or newer) whose lib/server/libjvm.so runs the node.", &pico_java_home, PICO_DEFAULT_JAVA_HOME);
	define_string("pico.jar", "pico.jar to run; empty: the one make install put under the share directory.", &pico_jar, "");
	define_string("pico.jvm_options", "More JVM options, separated by spaces, e.g. -Xmx512m.", &pico_jvm_options, "");
	define_int("pico.node_id", "Stable PicoMQ node id.", &pico_node_id, 1, 0, INT_MAX);
	define_int("pico.wal_cache_mb", "Engine log cache in MiB; 0: the engine's default.", &pico_wal_cache_mb, 0, 0, INT_MAX);
	define_int("pico.block_cache_mb", "Engine block cache in MiB; 0: the engine's default.", &pico_block_cache_mb, 0, 0, INT_MAX);
	define_int("pico.wal_upload_interval_ms", "Upload a block this long after it opened; 0: the engine's default.", &pico_wal_upload_interval_ms, 0, 0, INT_MAX);
	define_int("pico.threads", "Processors the JVM sizes its thread pools for; 0: all.", &pico_threads, 0, 0, 4096);
	MarkGUCPrefixReserved("pico");

	if (!process_shared_preload_libraries_in_progress)
	{
		ereport(WARNING,
				(errmsg("pico: loaded outside shared_preload_libraries, so no PicoMQ node runs"),
				 errhint("Add 'pico' to shared_preload_libraries and restart Postgres.")));
		return;
	}

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = PICO_RESTART_SECONDS;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "pico");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "pico_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "picomq node");
	snprintf(worker.bgw_type, BGW_MAXLEN, "picomq");
	RegisterBackgroundWorker(&worker);
}

/* ---- the JVM thread: the only thread that calls JNI ---- */

/* write(2) a whole buffer; any thread may call it (pipe writes up to PIPE_BUF are atomic). */
static void
pipe_write(const char *text, size_t len)
{
	while (len > 0)
	{
		ssize_t		n = write(log_pipe[1], text, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return;
		}
		text += n;
		len -= n;
	}
}

static void
pipe_printf(const char *fmt,...) pg_attribute_printf(1, 2);

static void
pipe_printf(const char *fmt,...)
{
	char		line[1024];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= (int) sizeof(line))
		n = sizeof(line) - 1;
	if (n > 0)
		pipe_write(line, n);
}

/* The JVM prints its own messages (option errors, warnings) through this hook, on any thread. */
static jint JNICALL
jvm_vfprintf(FILE *stream, const char *fmt, va_list ap)
{
	char		text[2048];
	int			n = vsnprintf(text, sizeof(text), fmt, ap);

	if (n >= (int) sizeof(text))
		n = sizeof(text) - 1;
	if (n > 0)
		pipe_write(text, n);
	return n;
}

/*
 * System.exit or Runtime.halt in the JVM: its VM thread calls this instead of
 * exit(3).  Exiting here would skip Postgres's cleanup (the postmaster would
 * take it for a crash), so the thread tells the main thread and parks; the
 * main thread exits the worker the normal way.
 */
static void JNICALL
jvm_exit_hook(jint code)
{
	pipe_printf("%cexit %d\n", PICO_EVENT, (int) code);
	for (;;)
		pause();
}

/* Describes, then clears, a pending Java exception as one line in the pipe. */
static void
report_exception(JNIEnv *env, const char *what)
{
	jthrowable	thrown = (*env)->ExceptionOccurred(env);
	jclass		object;
	jmethodID	to_string;
	jstring		text;
	const char *chars;

	(*env)->ExceptionClear(env);
	if (thrown == NULL)
	{
		pipe_printf("ERROR %s\n", what);
		return;
	}
	object = (*env)->FindClass(env, "java/lang/Object");
	to_string = (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;");
	text = (jstring) (*env)->CallObjectMethod(env, thrown, to_string);
	if ((*env)->ExceptionCheck(env) || text == NULL)
	{
		(*env)->ExceptionClear(env);
		pipe_printf("ERROR %s\n", what);
		return;
	}
	chars = (*env)->GetStringUTFChars(env, text, NULL);
	pipe_printf("ERROR %s: %s\n", what, chars);
	(*env)->ReleaseStringUTFChars(env, text, chars);
}

static void
wait_for_stop_request(void)
{
	pthread_mutex_lock(&stop_lock);
	while (!stop_requested)
		pthread_cond_wait(&stop_cond, &stop_lock);
	pthread_mutex_unlock(&stop_lock);
}

static void
park_forever(void)
{
	/* The main thread exits the process; this thread must not return attached to the JVM. */
	for (;;)
		pause();
}

static void *
jvm_thread_main(void *unused)
{
	JavaVMInitArgs args;
	JavaVM	   *vm;
	JNIEnv	   *env;
	jint		rc;
	jclass		entry;
	jclass		string_class;
	jmethodID	start;
	jmethodID	stop;
	jobjectArray settings;
	jboolean	started;

	memset(&args, 0, sizeof(args));
	args.version = JNI_VERSION_10;
	args.options = plan.options;
	args.nOptions = plan.noptions;
	args.ignoreUnrecognized = JNI_FALSE;
	rc = plan.create(&vm, (void **) &env, &args);
	if (rc != JNI_OK)
	{
		pipe_printf("ERROR JNI_CreateJavaVM returned %d (check pico.jvm_options and pico.java_home)\n", (int) rc);
		pipe_printf("%cfailed\n", PICO_EVENT);
		park_forever();
	}

	entry = (*env)->FindClass(env, PICO_ENTRY_CLASS);
	start = entry ? (*env)->GetStaticMethodID(env, entry, "start", "([Ljava/lang/String;Ljava/lang/String;)Z") : NULL;
	stop = start ? (*env)->GetStaticMethodID(env, entry, "stop", "(J)V") : NULL;
	if (stop == NULL)
	{
		report_exception(env, "cannot find " PICO_ENTRY_CLASS " in pico.jar (is pico.jar from the same release?)");
		pipe_printf("%cfailed\n", PICO_EVENT);
		park_forever();
	}

	string_class = (*env)->FindClass(env, "java/lang/String");
	settings = (*env)->NewObjectArray(env, plan.nsettings, string_class, NULL);
	for (int i = 0; settings != NULL && i < plan.nsettings; i++)
		(*env)->SetObjectArrayElement(env, settings, i, (*env)->NewStringUTF(env, plan.settings[i]));
	started = (*env)->ExceptionCheck(env) ? JNI_FALSE :
		(*env)->CallStaticBooleanMethod(env, entry, start, settings, (*env)->NewStringUTF(env, plan.log_path));
	if ((*env)->ExceptionCheck(env))
	{
		report_exception(env, "the node did not start");
		started = JNI_FALSE;
	}
	pipe_printf("%c%s\n", PICO_EVENT, started ? "started" : "failed");
	if (!started)
		park_forever();

	wait_for_stop_request();
	(*env)->CallStaticVoidMethod(env, entry, stop, (jlong) PICO_ENGINE_STOP_MS);
	if ((*env)->ExceptionCheck(env))
		report_exception(env, "stopping the node failed");
	pipe_printf("%cstopped\n", PICO_EVENT);
	park_forever();
	return NULL;
}

/* ---- the main thread ---- */

static void
pico_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* Splits a space-separated setting into options; the strings live as long as the worker. */
static void
add_words(const char *text, char ***items, int *count, int *capacity)
{
	char	   *copy = pstrdup(text);
	char	   *save = NULL;

	for (char *word = strtok_r(copy, " \t\n", &save); word != NULL; word = strtok_r(NULL, " \t\n", &save))
	{
		if (*count == *capacity)
		{
			*capacity *= 2;
			*items = repalloc(*items, sizeof(char *) * *capacity);
		}
		(*items)[(*count)++] = word;
	}
}

static void
add_item(char ***items, int *count, int *capacity, char *item)
{
	if (*count == *capacity)
	{
		*capacity *= 2;
		*items = repalloc(*items, sizeof(char *) * *capacity);
	}
	(*items)[(*count)++] = item;
}

/* dlopen()s the JDK's libjvm; a clear FATAL (and a restart 5 s later) when it is not there. */
static CreateJavaVM_t
load_jvm(void)
{
	char	   *libjvm = psprintf("%s/lib/server/libjvm.so", pico_java_home);
	struct stat st;
	void	   *handle;
	CreateJavaVM_t create;

	if (pico_java_home[0] == '\0' || stat(libjvm, &st) != 0)
		ereport(FATAL,
				(errmsg("pico: no JDK at pico.java_home = '%s': %s is missing", pico_java_home, libjvm),
				 errhint("Set pico.java_home to a JDK 21 or newer (the directory holding bin/java and lib/server/libjvm.so).")));
	handle = dlopen(libjvm, RTLD_NOW | RTLD_GLOBAL);
	if (handle == NULL)
		ereport(FATAL,
				(errmsg("pico: cannot load %s: %s", libjvm, dlerror()),
				 errhint("Set pico.java_home to a JDK 21 or newer for this machine's architecture.")));
	create = (CreateJavaVM_t) dlsym(handle, "JNI_CreateJavaVM");
	if (create == NULL)
		ereport(FATAL, (errmsg("pico: %s has no JNI_CreateJavaVM", libjvm)));
	return create;
}

static char *
jar_path(void)
{
	char		share[MAXPGPATH];
	char	   *jar;

	if (pico_jar[0] != '\0')
		jar = pstrdup(pico_jar);
	else
	{
		get_share_path(my_exec_path, share);
		jar = psprintf("%s/pico/pico.jar", share);
	}
	if (access(jar, R_OK) != 0)
		ereport(FATAL,
				(errmsg("pico: cannot read pico.jar at '%s': %m", jar),
				 errhint("Run make install in picomq/pico-extension, or set pico.jar.")));
	return jar;
}

/* The JVM's options: class path, signals, logging, then the user's pico.jvm_options. */
static void
plan_options(const char *jar)
{
	int			capacity = 16;
	int			count = 0;
	char	  **words = palloc(sizeof(char *) * capacity);

	add_item(&words, &count, &capacity, psprintf("-Djava.class.path=%s", jar));
	/* Postgres owns SIGTERM, SIGINT, SIGHUP and SIGQUIT. */
	add_item(&words, &count, &capacity, "-Xrs");
	/* Attaching (jcmd, jstack) starts with a SIGQUIT, which would crash-restart Postgres. */
	add_item(&words, &count, &capacity, "-XX:+DisableAttachMechanism");
	/* No /tmp/hsperfdata_<user>/<pid> file: jps would list the worker and invite jcmd. */
	add_item(&words, &count, &capacity, "-XX:-UsePerfData");
	/* Netty's native transport and the JDK's restricted methods, as the jar's manifest allows. */
	add_item(&words, &count, &capacity, "--enable-native-access=ALL-UNNAMED");
	/* The JVM's unified logging (warnings) goes to the pipe too, not to Postgres's stderr. */
	add_item(&words, &count, &capacity, "-Xlog:disable");
	add_item(&words, &count, &capacity, psprintf("-Xlog:all=warning:file=%s::filecount=0", plan.log_path));
	if (pico_threads > 0)
		add_item(&words, &count, &capacity, psprintf("-XX:ActiveProcessorCount=%d", pico_threads));
	add_words(pico_jvm_options, &words, &count, &capacity);

	plan.noptions = count + 2;
	plan.options = palloc0(sizeof(JavaVMOption) * plan.noptions);
	for (int i = 0; i < count; i++)
		plan.options[i].optionString = words[i];
	plan.options[count].optionString = "vfprintf";
	plan.options[count].extraInfo = (void *) jvm_vfprintf;
	plan.options[count + 1].optionString = "exit";
	plan.options[count + 1].extraInfo = (void *) jvm_exit_hook;
}

/*
 * The settings PostgresWorker turns into `pico serve` flags: every pico.*
 * value, and what it needs to reach this server (port, socket directory,
 * operating system user).
 */
static void
plan_settings(void)
{
	int			capacity = 32;
	int			count = 0;
	char	  **items = palloc(sizeof(char *) * capacity);
	struct passwd *user = getpwuid(geteuid());

#define SETTING(name, value) add_item(&items, &count, &capacity, psprintf("%s=%s", name, value))
#define INT_SETTING(name, value) add_item(&items, &count, &capacity, psprintf("%s=%d", name, value))
	SETTING("pico.storage", pico_storage);
	SETTING("pico.wal", pico_wal);
	SETTING("pico.database", pico_database);
	SETTING("pico.role", pico_role);
	SETTING("pico.database_url", pico_database_url);
	SETTING("pico.listen", pico_listen);
	SETTING("pico.admin_listen", pico_admin_listen);
	SETTING("pico.advertised_url", pico_advertised_url);
	SETTING("pico.cluster_id", pico_cluster_id);
	SETTING("pico.protocol", pico_protocol);
	SETTING("pico.log", pico_log);
	SETTING("pico.options", pico_options);
	INT_SETTING("pico.node_id", pico_node_id);
	INT_SETTING("pico.wal_cache_mb", pico_wal_cache_mb);
	INT_SETTING("pico.block_cache_mb", pico_block_cache_mb);
	INT_SETTING("pico.wal_upload_interval_ms", pico_wal_upload_interval_ms);
	INT_SETTING("server.port", PostPortNumber);
	SETTING("server.socket_directories", Unix_socket_directories ? Unix_socket_directories : "");
	SETTING("server.listen_addresses", ListenAddresses ? ListenAddresses : "");
	SETTING("server.os_user", user != NULL ? user->pw_name : "");
#undef SETTING
#undef INT_SETTING
	plan.settings = items;
	plan.nsettings = count;
}

/* Starts the JVM thread with every asynchronous signal blocked (see the file header). */
static void
start_jvm_thread(void)
{
	sigset_t	blocked;
	sigset_t	previous;
	pthread_t	thread;
	pthread_attr_t attr;
	int			rc;

	sigfillset(&blocked);
	sigdelset(&blocked, SIGSEGV);
	sigdelset(&blocked, SIGBUS);
	sigdelset(&blocked, SIGFPE);
	sigdelset(&blocked, SIGILL);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 8 * 1024 * 1024);
	pthread_sigmask(SIG_BLOCK, &blocked, &previous);
	rc = pthread_create(&thread, &attr, jvm_thread_main, NULL);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		ereport(FATAL, (errmsg("pico: cannot start the JVM thread: %s", strerror(rc))));
}

static void
request_stop(void)
{
	pthread_mutex_lock(&stop_lock);
	stop_requested = true;
	pthread_cond_signal(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
}

/* The level of a node line: slf4j's level word; other lines keep the last line's level. */
static int
level_of(const char *line)
{
	if (strncmp(line, "ERROR ", 6) == 0 || strncmp(line, "WARN ", 5) == 0)
		return WARNING;
	if (strncmp(line, "INFO ", 5) == 0)
		return LOG;
	if (strncmp(line, "DEBUG ", 6) == 0 || strncmp(line, "TRACE ", 6) == 0)
		return DEBUG1;
	/* A stack trace, or another line of the last message. */
	return line_level;
}

static void
handle_line(char *line)
{
	if (line[0] == PICO_EVENT)
	{
		const char *event = line + 1;

		if (strcmp(event, "started") == 0)
			node_state = NODE_RUNNING;
		else if (strcmp(event, "failed") == 0)
			node_state = NODE_FAILED;
		else if (strcmp(event, "stopped") == 0)
			node_state = NODE_STOPPED;
		else if (strncmp(event, "exit ", 5) == 0)
		{
			ereport(LOG, (errmsg("pico: the JVM exited (System.exit status %s)", event + 5)));
			node_state = NODE_EXITED;
		}
		return;
	}
	line_level = level_of(line);
	ereport(line_level, (errmsg_internal("pico: %s", line), errhidestmt(true)));
}

/* Reads what the pipe holds now and logs each complete line. */
static void
drain_log_pipe(void)
{
	static char buffer[PICO_LINE_MAX];
	static int	used = 0;

	for (;;)
	{
		ssize_t		n = read(log_pipe[0], buffer + used, sizeof(buffer) - 1 - used);
		int			start = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		used += n;
		for (int i = 0; i < used; i++)
		{
			if (buffer[i] == '\n')
			{
				buffer[i] = '\0';
				if (i > start && buffer[i - 1] == '\r')
					buffer[i - 1] = '\0';
				handle_line(buffer + start);
				start = i + 1;
			}
		}
		memmove(buffer, buffer + start, used - start);
		used -= start;
		if (used == (int) sizeof(buffer) - 1)
		{
			/* A line longer than the buffer: log what we have as one line. */
			buffer[used] = '\0';
			handle_line(buffer);
			used = 0;
		}
	}
}

void
pico_worker_main(Datum main_arg)
{
	CreateJavaVM_t create;
	char	   *jar;
	instr_time	stop_started;
	bool		stopping = false;

	pqsignal(SIGTERM, pico_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	if (pico_storage == NULL || pico_storage[0] == '\0')
	{
		ereport(LOG,
				(errmsg("pico: pico.storage is not set, so the PicoMQ node is not starting"),
				 errhint("Set pico.storage (e.g. '-2@file:///var/lib/picomq/objects' or '0@s3://bucket?region=...') and restart Postgres.")));
		proc_exit(0);			/* status 0: the postmaster does not restart us */
	}

	create = load_jvm();
	jar = jar_path();
	if (pipe2(log_pipe, O_CLOEXEC) != 0)
		ereport(FATAL, (errmsg("pico: cannot create the log pipe: %m")));
	if (fcntl(log_pipe[0], F_SETFL, O_NONBLOCK) != 0)
		ereport(FATAL, (errmsg("pico: cannot make the log pipe non-blocking: %m")));
	plan.create = create;
	snprintf(plan.log_path, sizeof(plan.log_path), "/proc/self/fd/%d", log_pipe[1]);
	plan_options(jar);
	plan_settings();
	ereport(LOG, (errmsg("pico: starting the PicoMQ node (JDK %s, %s)", pico_java_home, jar)));
	start_jvm_thread();

	for (;;)
	{
		int			events = WL_LATCH_SET | WL_SOCKET_READABLE | WL_EXIT_ON_PM_DEATH;
		long		timeout = -1;

		if (stopping)
		{
			instr_time	now;

			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, stop_started);
			timeout = PICO_ENGINE_STOP_MS + PICO_STOP_MARGIN_MS - (long) INSTR_TIME_GET_MILLISEC(now);
			if (timeout <= 0)
			{
				ereport(LOG, (errmsg("pico: the node did not stop in time; exiting (acknowledged records are in the WAL)")));
				break;
			}
			events |= WL_TIMEOUT;
		}
		(void) WaitLatchOrSocket(MyLatch, events, log_pipe[0], timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		drain_log_pipe();
		if (node_state == NODE_FAILED)
		{
			ereport(LOG, (errmsg("pico: the PicoMQ node did not start; retrying in %d s", PICO_RESTART_SECONDS)));
			proc_exit(1);
		}
		if (node_state == NODE_STOPPED || node_state == NODE_EXITED)
			break;
		if (got_sigterm && !stopping)
		{
			ereport(LOG, (errmsg("pico: stopping the PicoMQ node: closing its listeners, %d ms for the engine", PICO_ENGINE_STOP_MS)));
			stopping = true;
			INSTR_TIME_SET_CURRENT(stop_started);
			request_stop();
		}
	}
	if (node_state == NODE_STOPPED)
		ereport(LOG, (errmsg("pico: the PicoMQ node stopped")));
	/* Status 1: restarted 5 s later unless Postgres is shutting down. */
	proc_exit(1);
}
