// A stand-in for UniTask (com.cysharp.unitask): the conversion the package's UniTask form uses.

using System.Threading.Tasks;

namespace Cysharp.Threading.Tasks
{
    public struct UniTask<T>
    {
        public readonly Task<T> Task;

        public UniTask(Task<T> task)
        {
            Task = task;
        }
    }

    public static class UniTaskExtensions
    {
        public static UniTask<T> AsUniTask<T>(this Task<T> task, bool useCurrentSynchronizationContext = true)
        {
            return new UniTask<T>(task);
        }
    }
}
